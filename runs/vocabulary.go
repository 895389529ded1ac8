package runs

import "github.com/ealscope/ealscope/engine"

// SQL literals of the engine's vocabulary, for queries that filter on it: the words live in
// engine (engine.ArchFreeText, engine.VariantExact), never spelled again here.
const (
	sqlFreeText = "'" + engine.ArchFreeText + "'"
	sqlExact    = "'" + engine.VariantExact + "'"
)
