package safeguards_test

import (
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// builtinCases reads a domain's built-in corpus.
func builtinCases(t testing.TB, id string) (engine.Domain, []*engine.Case) {
	t.Helper()
	d, err := domains.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return d, cases
}

// faithfulChain is the faithful typed writer's chain: the ledger's records after every block.
func faithfulChain(t testing.TB, d engine.Domain, c *engine.Case, through int) []engine.MemoryVersion {
	t.Helper()
	var out []engine.MemoryVersion
	for b := 0; b <= through; b++ {
		recs, err := d.Replay(c, b)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := pyjson.Retree(d.TypedPayload(recs))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, engine.MemoryVersion{Block: b, Evidence: engine.Evidence{Kind: engine.MemoryEvidence, Payload: tree}})
	}
	return out
}
