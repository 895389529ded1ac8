package main

import (
	"fmt"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// caseAndMemory is what `fidelity` and `gate` read first: one case of a corpus file (or of
// the built-in corpus; exactly one of the two) and the raw bytes of a memory file.
func caseAndMemory(domainID string, builtin bool, corpus, caseID, memoryPath string) (engine.Domain, *engine.Case, []byte, error) {
	if (corpus == "") == !builtin {
		return nil, nil, nil, fmt.Errorf("give --corpus FILE or --builtin (exactly one)")
	}
	d, name, data, err := readCorpus(domainID, builtin, corpus)
	if err != nil {
		return nil, nil, nil, err
	}
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		return nil, nil, nil, err
	}
	kase, err := domains.FindCase(cases, caseID)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	raw, err := rundir.ReadRegularFile(memoryPath, rundir.MaxInputFileBytes)
	if err != nil {
		return nil, nil, nil, err
	}
	return d, kase, raw, nil
}
