package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ealscope/ealscope/domains"
)

// maxGenCases bounds --cases: the generator streams, but a corpus beyond this is no longer a
// scale test of the inspector, only of the disk.
const maxGenCases = 100000

type genCmd struct {
	Domain      string `default:"${default_domain}" help:"Domain of the generated cases (${domains})."`
	Cases       int    `name:"cases" required:"" help:"Number of cases to generate (1 to 100000)."`
	Seed        uint64 `default:"1" help:"Generator seed: the same seed and count always give the same bytes."`
	Out         string `type:"path" help:"Output JSONL file, written atomically (default: standard output)."`
	Multiparty  bool   `help:"A multi-party corpus: the generated cases under their own corpus version and, beside --out, their audience sidecar FILE.audience.json (docs/AUDIENCE.md)."`
	Distractors string `default:"0,1,3,7" help:"With --multiparty: other-audience conversations per history, cycled over the cases (comma list)."`
}

func (c *genCmd) Run(g *Globals) error {
	if c.Multiparty {
		return c.runMultiparty(g)
	}
	gen, err := domains.Generator(c.Domain)
	if err != nil {
		return fmt.Errorf("gen: %w", err)
	}
	if c.Cases < 1 || c.Cases > maxGenCases {
		return fmt.Errorf("gen: --cases must be between 1 and %d, got %d", maxGenCases, c.Cases)
	}
	var version string
	write := func(w io.Writer) (err error) {
		version, err = gen.GenerateCorpus(w, c.Cases, c.Seed)
		return err
	}
	if c.Out == "" || c.Out == "-" {
		bw := bufio.NewWriter(g.Stdout)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := writeFileAtomic(c.Out, write); err != nil {
		return err
	}
	fmt.Fprintf(g.textErr(), "wrote %d %s cases (seed %d) to %s\n", c.Cases, version, c.Seed, c.Out)
	return nil
}

// writeFileAtomic writes a file through a temporary file in the same directory and renames it
// into place, so readers never see a partial corpus and a failure leaves no file behind.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
