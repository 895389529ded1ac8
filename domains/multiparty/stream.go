package multiparty

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
)

// Each streams an n-case multi-party corpus of a line-corpus domain case by case: the
// generator writes through a pipe, each line is renamed to CorpusVersion, parsed, given its
// sidecar entry (attached as Case.Audience) and handed to fn, then dropped, so memory does not
// grow with n. The same seed and options give the cases and entries Generate gives.
func Each(domainID string, n int, seed uint64, distractors func(i int) int, fn func(i int, c *engine.Case, e *audience.Entry) error) error {
	d, err := domains.Get(domainID)
	if err != nil {
		return err
	}
	gen, ok := d.(engine.CaseGenerator)
	if !ok {
		return fmt.Errorf("domain %s has no case generator", domainID)
	}
	if _, document := d.(engine.CaseFileWriter); document {
		return fmt.Errorf("domain %s writes one corpus document, not a case per line: use Generate", domainID)
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := gen.GenerateCorpus(pw, n, seed)
		pw.CloseWithError(err)
	}()
	defer pr.Close()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	opts := audience.GenOptions{Seed: seed, Distractors: distractors}
	i := 0
	for sc.Scan() {
		line := bytes.ReplaceAll(sc.Bytes(), []byte(generatedVersion), []byte(`"`+CorpusVersion+`"`))
		cs, err := d.ParseCorpus("generated", line)
		if err != nil {
			return err
		}
		for _, c := range cs {
			e, err := audience.GenerateEntry(d, c, i, opts)
			if err != nil {
				return err
			}
			a := e.Audience
			c.Audience = &a
			if err := fn(i, c, e); err != nil {
				return err
			}
			i++
		}
	}
	return sc.Err()
}
