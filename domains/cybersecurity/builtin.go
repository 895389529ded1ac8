package cybersecurity

import _ "embed"

// BuiltinCorpusName is the file name the built-in corpus reports in messages.
const BuiltinCorpusName = "builtin:cybersecurity/builtin_v1.json"

// BuiltinCorpusVersion is the corpus version of the built-in cases.
const BuiltinCorpusVersion = "builtin_v1"

// builtinCorpus holds cases written by this project (generate.go with BuiltinSeed, never
// copied from EAL-Bench) in the jsonable case form; they pass the same reader as any corpus.
//
//go:embed corpus/builtin_v1.json
var builtinCorpus []byte
