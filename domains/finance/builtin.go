package finance

import _ "embed"

// BuiltinCorpusName is the file name the built-in corpus reports in messages.
const BuiltinCorpusName = "builtin:finance/builtin_v1.json"

// BuiltinCorpusVersion is the corpus version of the built-in cases.
const BuiltinCorpusVersion = "builtin_v1"

// builtinCorpus holds cases written by this project in EAL-Bench's finance corpus file form
// (never copied from EAL-Bench); they pass the same reader as any corpus.
//
//go:embed corpus/builtin_v1.json
var builtinCorpus []byte
