package replay

// Writer instruction literals of EAL-Bench's LangMem writer (langmem_writer.py), shared by
// every domain (each domain's own prompt-policy texts are in its engine.Surface), byte-exact (the writer reference re-hashed them
// into the published memory_implementation_hash). Generated from the reference notes; do not
// edit by hand.
const (
	freeTextValueInstruction    = `The profile has one atomic field named content. For every free-text update, use exactly one replace patch at /content whose value is the complete revised plain-text or Markdown string. Never use a descendant path such as /content/anything, and never encode a structured JSON document inside the string.`
	typedValueInstruction       = `Preserve the JSON types declared by the typed profile schema. In particular, emit arrays as JSON arrays, objects as JSON objects, numbers as numbers, booleans as booleans, and null only where the schema permits it; do not encode any of them as strings.`
	nestedArrayPatchInstruction = `PatchDoc cannot encode an array nested inside an object that is itself inside a whole object value. Use ordered dependent patches instead: first add or replace the containing object with each such nested array field set to null, then replace each field through its direct JSON Pointer with the actual array value. A dependent add must precede its replace even though the generic PatchDoc guidance normally lists replaces first.`
)
