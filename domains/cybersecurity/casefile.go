package cybersecurity

import "github.com/ealscope/ealscope/engine"

var _ engine.CaseFileWriter = Domain{}

// CaseFile implements engine.CaseFileWriter: the workspace stores each case of a one-document
// corpus as its own one-case document (CaseDocument).
func (Domain) CaseFile(c *engine.Case) ([]byte, error) { return CaseDocument(c) }
