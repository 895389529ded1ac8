package procurement

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/ealscope/ealscope/domains/internal/casegen"
)

// The seeded generator of synthetic procurement cases, for scale tests. Every case it makes
// passes Validate, its in-scope probes are authorized at the final block (by the one active
// record) and its out-of-scope probes are denied; the generator checks this itself and reports
// a failure as a bug. Output depends only on (n, seed): the generator uses math/rand/v2's PCG
// with integer arithmetic only (no floats, so no fused multiply-add differences between
// architectures), never iterates a map into the output and never reads the clock.

// GeneratedCorpusVersion is the schema_version (corpus version) of generated cases.
const GeneratedCorpusVersion = "generated_ealscope_v1"

// PCG second seed words: the master generator derives one seed per case from the user's seed,
// and each case then runs on its own generator, so case i is the same whatever n is.
const (
	genMasterStream = 0x65616c73636f7065 // "ealscope"
	genCaseStream   = 0x67656e6572617465 // "generate"
)

// GenLifecycles are the lifecycles the generator draws from, uniformly.
var GenLifecycles = []string{"issue_only", "issue_patch", "issue_revoke", "issue_revoke_replace"}

var genDimensions = []string{"amount", "time", "category"}

// Generate returns n seeded synthetic cases. The same (n, seed) always gives the same cases,
// and the first k cases of Generate(n, seed) are those of Generate(k, seed).
func Generate(n int, seed uint64) ([]*Case, error) {
	g := newGenerator(seed)
	return casegen.Take(n, func(int) (*Case, error) { return g.next() })
}

// GenerateJSONL returns Generate(n, seed) as a JSONL corpus: one compact line per case, each
// ending in a newline.
func GenerateJSONL(n int, seed uint64) ([]byte, error) {
	return casegen.Bytes(func(w io.Writer) error { return WriteJSONL(w, n, seed) })
}

// WriteJSONL streams the corpus of GenerateJSONL to w one case at a time, so memory does not
// grow with n.
func WriteJSONL(w io.Writer, n int, seed uint64) error {
	g := newGenerator(seed)
	return casegen.Each(n, func(int) (*Case, error) { return g.next() }, func(_ int, c *Case) error {
		line, err := MarshalCaseLine(c)
		if err == nil {
			_, err = w.Write(append(line, '\n'))
		}
		return err
	})
}

// MarshalCaseLine encodes a case as one compact JSON line (no trailing newline), keys in the
// corpus order, with <, > and & written as themselves like Python's json.dumps.
func MarshalCaseLine(c *Case) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("case %s: %w", c.CaseID, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

type generator struct {
	seed       uint64
	master     *rand.Rand
	ordinal    int
	namespaces map[string]bool
}

func newGenerator(seed uint64) *generator {
	return &generator{seed: seed, master: rand.New(rand.NewPCG(seed, genMasterStream)), namespaces: map[string]bool{}}
}

func (g *generator) next() (*Case, error) {
	g.ordinal++
	r := rand.New(rand.NewPCG(g.master.Uint64(), genCaseStream))
	ns := fmt.Sprintf("%08x", r.Uint32())
	for g.namespaces[ns] {
		ns = fmt.Sprintf("%08x", r.Uint32())
	}
	g.namespaces[ns] = true
	id := fmt.Sprintf("ealscope_gen_s%d_%05d", g.seed, g.ordinal)
	c, err := (&caseGen{r: r, id: id, ns: ns}).build()
	if err == nil {
		err = checkGenerated(c, g.ordinal)
	}
	if err != nil {
		return nil, fmt.Errorf("generator bug: case %s: %w", id, err)
	}
	return c, nil
}

// checkGenerated applies the corpus validators and the oracle to a generated case.
func checkGenerated(c *Case, line int) error {
	if err := Validate(c); err != nil {
		return err
	}
	return casegen.CheckScopes(Domain{}, ToEngine(c, line))
}
