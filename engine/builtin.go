package engine

// BuiltinCases parses the corpus a domain ships (CorpusReader.BuiltinCorpus), strictly.
func BuiltinCases(d CorpusReader) ([]*Case, error) {
	name, data := d.BuiltinCorpus()
	return d.ParseCorpus(name, data)
}
