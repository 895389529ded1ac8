// Package safeguardtest holds the fixtures that the safeguard policies' own tests and the
// tests of the trial path in replay share: faithful typed chains, a record rewritten with
// other citations, and the record-binding fixture of a built-in case. It is imported by
// tests only; it depends on engine alone, so a test at any layer may use it.
package safeguardtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// PPMFFixture is one record of a built-in case's final ledger and the facts about its
// history the binding paths are built from.
type PPMFFixture struct {
	D       engine.Domain
	C       *engine.Case
	Last    int
	Record  engine.Record
	Issued  int         // the block of the event that issued the record
	Issuer  engine.Turn // that event's source turn
	Relayed engine.Turn // a later relayed turn that names the record
	Quiet   int         // a block no turn of which names the record
	Probe   engine.Probe
}

// TrustOf is the trust level the domain gives turn t of case c.
func TrustOf(d engine.Domain, c *engine.Case, t engine.Turn) engine.Trust {
	sar := d.(engine.SourceAuthorityRules)
	return d.(engine.TrustRules).TurnTrust(c, t, slices.Contains(sar.AuthorityCapablePrincipals(c), sar.TurnPrincipal(t))).Level
}

// PPMFFixtureOf finds, in case c (tests take a domain's first built-in case), a final record issued by an event, a
// relayed turn naming it after its issue, a block silent about it, and an in-scope probe it
// authorizes on its own.
func PPMFFixtureOf(t testing.TB, d engine.Domain, c *engine.Case) PPMFFixture {
	t.Helper()
	f := PPMFFixture{D: d, C: c, Last: c.LastBlock(), Quiet: -1}
	recs, err := d.Replay(c, f.Last)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		f.Record = nil
		for _, e := range c.Events {
			if e.Type == "issue" && e.NewAuthorizationID == r.AuthorizationID() {
				f.Issued = e.BlockIndex
				f.Issuer, _ = c.Turn(e.SourceTurnIDs[0])
				f.Record = r
			}
		}
		if f.Record == nil {
			continue
		}
		f.Relayed = engine.Turn{}
		for _, b := range c.Blocks {
			for _, tu := range b.Turns {
				if b.Index > f.Issued && strings.Contains(tu.Content, r.AuthorizationID()) && TrustOf(d, c, tu) == engine.TrustExternal {
					f.Relayed = tu
				}
			}
		}
		f.Probe = engine.Probe{}
		for _, p := range c.Probes {
			if p.Scope == "in_scope" && d.Deny(c, r, p.Request) == "" {
				f.Probe = p
				break
			}
		}
		if f.Relayed.ID == "" || f.Probe.ID == "" {
			continue
		}
		for _, b := range c.Blocks {
			silent := b.Index != f.Issued
			for _, tu := range b.Turns {
				if strings.Contains(tu.Content, r.AuthorizationID()) {
					silent = false
				}
			}
			if silent {
				f.Quiet = b.Index
				break
			}
		}
		if f.Quiet >= 0 {
			return f
		}
	}
	t.Fatalf("%s: no record of %s has an issuing turn, a relayed mention, a silent block and an in-scope probe", d.ID(), c.ID)
	return f
}

// WithCitations rewrites a record's source_turn_ids through the typed payload (finance's
// flat schema joins them with " | ").
func WithCitations(t testing.TB, d engine.MemoryCodec, r engine.Record, ids ...string) engine.Record {
	t.Helper()
	tree, err := pyjson.Retree(d.TypedPayload([]engine.Record{r}))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := d.Schema().ByRole(engine.RoleSources)
	rec := tree.(map[string]any)["authorizations"].([]any)[0].(map[string]any)
	if f.Joined != "" {
		rec[f.Path] = strings.Join(ids, f.Joined)
	} else {
		list := make([]any, len(ids))
		for i, id := range ids {
			list[i] = id
		}
		rec[f.Path] = list
	}
	recs, err := d.ParseTyped(tree)
	if err != nil {
		t.Fatal(err)
	}
	return recs[0]
}

// ChainFrom is a writer chain over blocks 0..last holding r from block `from` on (and
// nothing before): the record was written, whole, at `from`.
func ChainFrom(d engine.Domain, r engine.Record, from, last int) []engine.MemoryVersion {
	var out []engine.MemoryVersion
	for k := 0; k <= last; k++ {
		var recs []engine.Record
		if k >= from {
			recs = []engine.Record{r}
		}
		out = append(out, engine.MemoryVersion{Block: k, Evidence: TypedEvidence(d, recs)})
	}
	return out
}

// TypedEvidence is a typed memory of records as a run stores it: a JSON tree.
func TypedEvidence(d engine.MemoryCodec, recs []engine.Record) engine.Evidence {
	tree, err := pyjson.Retree(d.TypedPayload(recs))
	if err != nil {
		panic(err)
	}
	return engine.Evidence{Kind: engine.MemoryEvidence, Payload: tree}
}

// FaithfulChain is the faithful typed memory of every block 0..through (the ledger replayed),
// the chain a faithful_typed trial at block `through` comes from.
func FaithfulChain(t testing.TB, d engine.Domain, c *engine.Case, through int) []engine.MemoryVersion {
	t.Helper()
	var out []engine.MemoryVersion
	for k := 0; k <= through; k++ {
		recs, err := d.Replay(c, k)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, engine.MemoryVersion{Block: k, Evidence: TypedEvidence(d, recs)})
	}
	return out
}
