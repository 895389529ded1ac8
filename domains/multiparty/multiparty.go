// Package multiparty builds the multi-party corpora of the audience-bound safeguard
// (docs/AUDIENCE.md): a domain's seeded generated cases under their own corpus version, and
// the audience sidecar that gives them principals, channels, requests by several principals,
// grants and the hidden ground truth. The built-in one (12 cases per domain, a fixed seed) is
// what `ealscope run --builtin --multiparty` runs; `ealscope gen --multiparty` scales it.
package multiparty

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
)

// CorpusVersion is the corpus version of every multi-party corpus; the generators' own
// version is replaced by it so a multi-party run never shares cases with a generated one.
const CorpusVersion = "multiparty_ealscope_v1"

// generatedVersion is the version the domains' generators stamp (as a JSON string).
const generatedVersion = `"generated_ealscope_v1"`

// Built-in corpus: its size and seed.
const (
	BuiltinCases = 12
	BuiltinSeed  = 20260826
)

// DistractorCycle are the distractor counts a scaled corpus cycles through (case i gets
// DistractorCycle[i mod 4]): other-audience conversations per history.
var DistractorCycle = []int{0, 1, 3, 7}

// Corpus is a multi-party corpus and its sidecar.
type Corpus struct {
	Domain      engine.Domain
	Name        string
	Data        []byte
	Cases       []*engine.Case
	Sidecar     *audience.File
	SidecarData []byte
	Truths      map[string]*audience.Truth
}

// SidecarName is the file name of a corpus file's sidecar: beside it, same stem.
func SidecarName(corpusPath string) string {
	for _, ext := range []string{".jsonl", ".json"} {
		if len(corpusPath) > len(ext) && corpusPath[len(corpusPath)-len(ext):] == ext {
			return corpusPath[:len(corpusPath)-len(ext)] + ".audience.json"
		}
	}
	return corpusPath + ".audience.json"
}

// Generate builds an n-case multi-party corpus of a domain: the domain's generated cases under
// CorpusVersion, with a sidecar (distractors: per case, nil for none). The corpus bytes are
// written to w as they are made; the cases are kept only when keep is true.
func Generate(domainID string, n int, seed uint64, distractors func(i int) int, w io.Writer, keep bool) (*Corpus, error) {
	d, err := domains.Get(domainID)
	if err != nil {
		return nil, err
	}
	gen, ok := d.(engine.CaseGenerator)
	if !ok {
		return nil, fmt.Errorf("domain %s has no case generator", domainID)
	}
	var raw bytes.Buffer
	if _, err := gen.GenerateCorpus(&raw, n, seed); err != nil {
		return nil, err
	}
	data := bytes.ReplaceAll(raw.Bytes(), []byte(generatedVersion), []byte(`"`+CorpusVersion+`"`))
	raw = bytes.Buffer{}
	name := fmt.Sprintf("%s_%s_s%d.jsonl", domainID, CorpusVersion, seed)
	out := &Corpus{Domain: d, Name: name}
	if _, document := d.(engine.CaseFileWriter); document {
		out.Name = name[:len(name)-1]
	}
	_, document := d.(engine.CaseFileWriter)
	if !document && !keep {
		if err := out.streamSidecar(d, data, audience.GenOptions{Seed: seed, Distractors: distractors}); err != nil {
			return nil, err
		}
		if w != nil {
			_, err = w.Write(data)
		}
		return out, err
	}
	var cases []*engine.Case
	if document {
		if cases, err = d.ParseCorpus(out.Name, data); err != nil {
			return nil, err
		}
	} else {
		// A line corpus is read a line at a time so a large one is not held parsed.
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			cs, err := d.ParseCorpus(out.Name, sc.Bytes())
			if err != nil {
				return nil, err
			}
			cases = append(cases, cs...)
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	sidecar, err := audience.Generate(d, cases, CorpusVersion, audience.GenOptions{Seed: seed, Distractors: distractors})
	if err != nil {
		return nil, err
	}
	sidecar.Name = SidecarName(out.Name)
	if out.SidecarData, err = audience.Encode(sidecar); err != nil {
		return nil, err
	}
	// The sidecar is read back by the strict reader, as a user's file would be.
	if out.Sidecar, err = audience.Parse(sidecar.Name, out.SidecarData); err != nil {
		return nil, fmt.Errorf("generated sidecar does not read back: %w", err)
	}
	if out.Truths, err = audience.Bind(out.Sidecar, d, cases); err != nil {
		return nil, fmt.Errorf("generated sidecar does not bind: %w", err)
	}
	if w != nil {
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	if keep {
		out.Data, out.Cases = data, cases
	}
	return out, nil
}

var builtin sync.Map // domain id -> *builtinOnce

type builtinOnce struct {
	once sync.Once
	c    *Corpus
	err  error
}

// Builtin is the built-in multi-party corpus of a domain (made once per process). Its cases
// carry their audiences; callers must not change them.
func Builtin(domainID string) (*Corpus, error) {
	v, _ := builtin.LoadOrStore(domainID, &builtinOnce{})
	b := v.(*builtinOnce)
	b.once.Do(func() {
		b.c, b.err = Generate(domainID, BuiltinCases, BuiltinSeed, nil, nil, true)
		if b.err == nil {
			b.c.Name = "builtin_" + b.c.Name
		}
	})
	return b.c, b.err
}

// streamSidecar makes the sidecar of a large line corpus one case at a time, checking each
// entry by the strict reader against its case, so the parsed cases are never held together.
func (out *Corpus) streamSidecar(d engine.Domain, data []byte, opts audience.GenOptions) error {
	f := &audience.File{Name: SidecarName(out.Name), DomainID: d.ID(), CorpusVersion: CorpusVersion, Cases: map[string]*audience.Entry{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	i := 0
	for sc.Scan() {
		cs, err := d.ParseCorpus(out.Name, sc.Bytes())
		if err != nil {
			return err
		}
		for _, c := range cs {
			e, err := audience.GenerateEntry(d, c, i, opts)
			if err != nil {
				return err
			}
			one := &audience.File{Name: f.Name, DomainID: f.DomainID, CorpusVersion: f.CorpusVersion, Cases: map[string]*audience.Entry{c.ID: e}, Order: []string{c.ID}}
			b, err := audience.Encode(one)
			if err != nil {
				return err
			}
			back, err := audience.Parse(f.Name, b)
			if err == nil {
				_, err = audience.Bind(back, d, []*engine.Case{c})
			}
			if err != nil {
				return fmt.Errorf("generated sidecar entry does not read back: %w", err)
			}
			f.Cases[c.ID] = e
			f.Order = append(f.Order, c.ID)
			i++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	sort.Strings(f.Order)
	var err error
	out.Sidecar = f
	out.SidecarData, err = audience.Encode(f)
	return err
}
