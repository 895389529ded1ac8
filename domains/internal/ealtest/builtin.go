package ealtest

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// Builtin parses d's embedded corpus, failing the test or benchmark on error.
func Builtin(t testing.TB, d engine.CorpusReader) []*engine.Case {
	t.Helper()
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// BuiltinAtLeast is Builtin for a test that needs at least min built-in cases.
func BuiltinAtLeast(t testing.TB, d engine.CorpusReader, min int) []*engine.Case {
	t.Helper()
	cases := Builtin(t, d)
	if len(cases) < min {
		t.Fatalf("want at least %d built-in cases, got %d", min, len(cases))
	}
	return cases
}

// Generated builds n generated cases of a domain (seed 1) as engine cases, numbered from line
// 1 as the corpus reader numbers them; benchmarks call it outside the timer.
func Generated[C any](t testing.TB, n int, generate func(n int, seed uint64) ([]C, error), toEngine func(c C, line int) *engine.Case) []*engine.Case {
	t.Helper()
	generated, err := generate(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases := make([]*engine.Case, len(generated))
	for i, c := range generated {
		cases[i] = toEngine(c, i+1)
	}
	return cases
}

// CheckEmbeddedCorpus: the corpus d embeds is exactly what build writes, so the file and the
// code that wrote it cannot drift apart. With update it rewrites corpus/builtin_v1.json (the
// test runs in the domain's folder) instead; regenerate is the command that does so.
func CheckEmbeddedCorpus(t *testing.T, d engine.CorpusReader, build func() ([]byte, error), update bool, regenerate string) {
	t.Helper()
	want, err := build()
	if err != nil {
		t.Fatal(err)
	}
	if update {
		if err := os.WriteFile("corpus/builtin_v1.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if name, got := d.BuiltinCorpus(); !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the generator's output (regenerate: %s)", name, regenerate)
	}
}

// CheckPairsSeparated: at the final block the oracle authorizes every in-scope probe of c and
// denies every out-of-scope one, and each of dimensions has exactly one matched pair.
func CheckPairsSeparated(t *testing.T, d engine.Domain, c *engine.Case, dimensions ...string) {
	t.Helper()
	verdicts, err := engine.OracleProbes(d, c, -1)
	if err != nil {
		t.Fatal(err)
	}
	dims := map[string]int{}
	for _, v := range verdicts {
		dims[v.Probe.Dimension+"/"+v.Probe.Scope]++
		if v.Verdict.Authorized != (v.Probe.Scope == "in_scope") {
			t.Errorf("%s %s: authorized=%v (%s)", c.ID, v.Probe.ID, v.Verdict.Authorized, v.Verdict.Reason)
		}
	}
	for _, dim := range dimensions {
		if dims[dim+"/in_scope"] != 1 || dims[dim+"/out_of_scope"] != 1 {
			t.Errorf("%s: no matched %s pair", c.ID, dim)
		}
	}
}

// TrustDomain is a domain with its trust schema and source-authority rules (docs/FORMATS.md 8.1).
type TrustDomain interface {
	engine.SourceAuthorityRules
	engine.TrustRules
}

// CheckTurnTrust: each listed turn of c is placed at the lattice level and by the rule given
// (want maps a turn id to {level, rule}).
func CheckTurnTrust(t *testing.T, d TrustDomain, c *engine.Case, want map[string][2]string) {
	t.Helper()
	for id, w := range want {
		tu, ok := c.Turn(id)
		if !ok {
			t.Fatalf("%s: no turn %s", c.ID, id)
		}
		got := d.TurnTrust(c, tu, slices.Contains(d.AuthorityCapablePrincipals(c), d.TurnPrincipal(tu)))
		if got.Level.String() != w[0] || got.Rule != w[1] {
			t.Errorf("%s %s: got %s (%s), want %s (%s)", c.ID, id, got.Level, got.Rule, w[0], w[1])
		}
	}
}
