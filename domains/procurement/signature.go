package procurement

import "github.com/ealscope/ealscope/engine"

var _ engine.CorpusSignature = Domain{}

// CorpusKeys implements engine.CorpusSignature: every JSONL case line has these keys.
func (Domain) CorpusKeys() []string { return []string{"case_id", "blocks", "probe_pairs"} }
