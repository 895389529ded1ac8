package finance

import "github.com/ealscope/ealscope/engine"

var _ engine.CorpusSignature = Domain{}

// CorpusKeys implements engine.CorpusSignature: the finance corpus file's own header (it
// names no domain_id).
func (Domain) CorpusKeys() []string { return []string{"schema_version", "corpus_version", "cases"} }
