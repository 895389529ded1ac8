package safeguardtests_test

import (
	"bytes"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards/safeguardtest"
)

// builtinCases are a domain's built-in corpus, parsed.
func builtinCases(t testing.TB, id string) (engine.Domain, []*engine.Case) {
	t.Helper()
	d, cases, err := domains.BuiltinCases(id)
	if err != nil {
		t.Fatal(err)
	}
	return d, cases
}

// generatedCases are n cases of a domain's generator with the seed given, parsed as its
// corpus reader reads them.
func generatedCases(t testing.TB, id string, n int, seed uint64) (engine.Domain, []*engine.Case) {
	t.Helper()
	d, err := domains.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := domains.Generator(id)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := gen.GenerateCorpus(&buf, n, seed); err != nil {
		t.Fatal(err)
	}
	cases, err := d.ParseCorpus("generated.jsonl", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return d, cases
}

// typedEvidence is a typed memory of records as a run stores it: a JSON tree.
var typedEvidence = safeguardtest.TypedEvidence

// rawTypedEvidence is the same memory as the domain's serialiser returns it (Go values).
func rawTypedEvidence(d engine.Domain, recs []engine.Record) engine.Evidence {
	return engine.Evidence{Kind: engine.MemoryEvidence, Payload: d.TypedPayload(recs)}
}

// faithfulChain is the faithful typed memory of every block 0..through.
var faithfulChain = safeguardtest.FaithfulChain

// firstCaseChain is a domain's first built-in case with its faithful chain through the
// case's final block.
func firstCaseChain(t testing.TB, id string) (engine.Domain, *engine.Case, []engine.MemoryVersion) {
	t.Helper()
	d, cases := builtinCases(t, id)
	c := cases[0]
	return d, c, faithfulChain(t, d, c, c.LastBlock())
}

// scored is the oracle's outcome of one tool call on a probe at block `through`.
func scored(t testing.TB, d engine.Domain, c *engine.Case, p engine.Probe, name string, args map[string]any, through int) engine.Outcome {
	t.Helper()
	o, err := engine.Score(d, c, p, engine.Response{ToolCalls: []engine.ToolCall{{ID: "call_1", Name: name, Arguments: args}}}, through)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
