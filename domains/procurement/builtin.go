package procurement

import (
	_ "embed"
)

// BuiltinCorpusName is the file name the built-in corpus reports in messages.
const BuiltinCorpusName = "builtin:procurement/builtin_v1.jsonl"

// BuiltinCorpusVersion is the corpus version (schema_version) of the built-in cases.
const BuiltinCorpusVersion = "builtin_v1"

// builtinCorpus holds cases written by this project in EAL-Bench's case schema (never copied
// from EAL-Bench); they pass the same validators as any corpus.
//
//go:embed corpus/builtin_v1.jsonl
var builtinCorpus []byte
