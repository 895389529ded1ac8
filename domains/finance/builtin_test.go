package finance_test

import (
	"bytes"
	"flag"
	"testing"

	"github.com/ealscope/ealscope/domains"
	. "github.com/ealscope/ealscope/domains/finance"
	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

var update = flag.Bool("update", false, "rewrite corpus/builtin_v1.json from BuildBuiltinCorpus")

// TestBuiltinUpToDate: the embedded corpus is exactly what the builder writes (regenerate with
// go test ./domains/finance -run TestBuiltinUpToDate -update).
func TestBuiltinUpToDate(t *testing.T) {
	ealtest.CheckEmbeddedCorpus(t, Domain{}, BuildBuiltinCorpus, *update,
		"go test ./domains/finance -run TestBuiltinUpToDate -update")
}

// TestBuiltinCorpus: at least six cases of twelve or more blocks covering issue, narrowing
// patch, revoke and replace, stale restatements, the four near-match dimensions, every pair
// separated by the oracle, and domains.Check finds every case valid.
func TestBuiltinCorpus(t *testing.T) {
	d := Domain{}
	cases := ealtest.BuiltinAtLeast(t, d, 6)
	kinds := map[string]int{}
	for _, c := range cases {
		if len(c.Blocks) < 12 {
			t.Errorf("%s: %d blocks", c.ID, len(c.Blocks))
		}
		for _, e := range c.Events {
			kinds[e.Type]++
		}
		stale := 0
		for _, b := range c.Blocks {
			for _, turn := range b.Turns {
				if turn.ActorID != MandateIssuer && bytes.Contains([]byte(turn.Content), []byte(`"source_turn_ids":"src_`)) {
					stale++
				}
			}
		}
		if stale < 2 {
			t.Errorf("%s: %d stale restatements quoting an earlier payload", c.ID, stale)
		}
		ealtest.CheckPairsSeparated(t, d, c, "instrument_id", "side", "order_type", "requested_at")
	}
	for _, k := range []string{"issue", "patch", "revoke", "replace"} {
		if kinds[k] == 0 {
			t.Errorf("no built-in %s event", k)
		}
	}
	name, data := d.BuiltinCorpus()
	report := domains.Check(d, name, data)
	if report.Invalid() != 0 {
		t.Errorf("check finds %d invalid built-in cases: %+v", report.Invalid(), report.Cases)
	}
}
