package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/ealscope/ealscope/domains/multiparty"
)

// runMultiparty writes a generated multi-party corpus to --out and its audience sidecar beside
// it, both atomically: the sidecar first, so a corpus file never stands without its sidecar.
func (c *genCmd) runMultiparty(g *Globals) error {
	if c.Out == "" || c.Out == "-" {
		return errors.New("gen --multiparty: give --out FILE (the sidecar is written beside it)")
	}
	if c.Cases < 1 || c.Cases > maxGenCases {
		return fmt.Errorf("gen: --cases must be between 1 and %d, got %d", maxGenCases, c.Cases)
	}
	var cycle []int
	for _, s := range splitList(c.Distractors) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 64 {
			return fmt.Errorf("gen: --distractors: %q is not a count between 0 and 64", s)
		}
		cycle = append(cycle, n)
	}
	if len(cycle) == 0 {
		cycle = []int{0}
	}
	distractors := func(i int) int { return cycle[i%len(cycle)] }
	var corpus *multiparty.Corpus
	var data []byte
	pw := &byteSink{}
	corpus, err := multiparty.Generate(c.Domain, c.Cases, c.Seed, distractors, pw, false)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	data = pw.b
	sidecarPath := multiparty.SidecarName(c.Out)
	if err := writeFileAtomic(sidecarPath, func(w io.Writer) error { _, err := w.Write(corpus.SidecarData); return err }); err != nil {
		return err
	}
	if err := writeFileAtomic(c.Out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		os.Remove(sidecarPath)
		return err
	}
	fmt.Fprintf(g.textErr(), "wrote %d %s cases (seed %d) to %s and their audience sidecar to %s\n", c.Cases, multiparty.CorpusVersion, c.Seed, c.Out, sidecarPath)
	return nil
}

// byteSink collects written bytes.
type byteSink struct{ b []byte }

func (s *byteSink) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}
