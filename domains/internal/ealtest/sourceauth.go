package ealtest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// SourceAuthorityDomain is a domain with its source-authority rules (docs/FORMATS.md 8.1).
type SourceAuthorityDomain interface {
	engine.Domain
	engine.SourceAuthorityRules
}

// CheckSourceAuthorityRules runs the source-authority checks every domain passes:
// CheckSourceAuthority on the shared case (sharedCase reads it from EAL-Bench data, so that
// subtest skips when EALSCOPE_EAL_DATA is unset) and CheckFaithfulCitations on the built-in
// corpus.
func CheckSourceAuthorityRules(t *testing.T, d SourceAuthorityDomain, sharedCase func(t *testing.T) *engine.Case) {
	t.Run("MatchesEALBench", func(t *testing.T) { CheckSourceAuthority(t, d, sharedCase(t)) })
	t.Run("Builtin", func(t *testing.T) { CheckFaithfulCitations(t, d) })
}

// CheckSourceAuthority: the principal and authority capability of every turn of the shared
// case c are exactly the ones EAL-Bench's source-authority adapter resolved
// (source_authority_gate__shared_cases.json, case_source_authority).
func CheckSourceAuthority(t *testing.T, d SourceAuthorityDomain, c *engine.Case) {
	t.Helper()
	var doc struct {
		Cases map[string]map[string]struct {
			Capable []string            `json:"authorization_capable_principals"`
			Final   int                 `json:"final_block_index"`
			Turns   [][]json.RawMessage `json:"turns"`
		} `json:"case_source_authority"`
	}
	Decode(t, GateCasesFile, &doc)
	want, ok := doc.Cases[d.ID()][c.ID]
	if !ok {
		t.Fatalf("no case_source_authority for %s %s", d.ID(), c.ID)
	}
	capable := d.AuthorityCapablePrincipals(c)
	if !slices.Equal(capable, want.Capable) {
		t.Errorf("capable principals %v, want %v", capable, want.Capable)
	}
	if c.LastBlock() != want.Final {
		t.Errorf("final block %d, want %d", c.LastBlock(), want.Final)
	}
	var turns []engine.Turn
	for _, b := range c.Blocks {
		turns = append(turns, b.Turns...)
	}
	if len(turns) != len(want.Turns) {
		t.Fatalf("%d turns, EAL-Bench has %d", len(turns), len(want.Turns))
	}
	for i, row := range want.Turns {
		var id, principal string
		var block int
		var isCapable bool
		for j, dst := range []any{&id, &block, &principal, &isCapable} {
			if err := json.Unmarshal(row[j], dst); err != nil {
				t.Fatalf("turn row %d field %d: %v", i, j, err)
			}
		}
		got := turns[i]
		gotPrincipal := d.TurnPrincipal(got)
		if got.ID != id || got.BlockIndex != block || gotPrincipal != principal || slices.Contains(capable, gotPrincipal) != isCapable {
			t.Errorf("turn %d: got (%s, %d, %s, %v), want (%s, %d, %s, %v)", i, got.ID, got.BlockIndex,
				gotPrincipal, slices.Contains(capable, gotPrincipal), id, block, principal, isCapable)
		}
	}
}

// CheckFaithfulCitations: on every built-in case of d, every turn has a principal, the case
// has grant-capable principals, and the faithful memory at every block cites only turns
// already visible at that block and spoken by a capable principal (EAL-Bench's gate keeps
// every faithful record).
func CheckFaithfulCitations(t *testing.T, d SourceAuthorityDomain) {
	t.Helper()
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		capable := d.AuthorityCapablePrincipals(c)
		if len(capable) == 0 {
			t.Fatalf("%s: no authority-capable principals", c.ID)
		}
		for _, b := range c.Blocks {
			for _, turn := range b.Turns {
				if d.TurnPrincipal(turn) == "" {
					t.Errorf("%s %s: no principal", c.ID, turn.ID)
				}
			}
		}
		for block := 0; block <= c.LastBlock(); block++ {
			records, err := d.Replay(c, block)
			if err != nil {
				t.Fatal(err)
			}
			visible := c.VisibleSourceIDs(block)
			for _, r := range records {
				cites := d.RecordCitations(r)
				if len(cites) == 0 {
					t.Errorf("%s block %d %s: cites nothing", c.ID, block, r.AuthorizationID())
				}
				for _, id := range cites {
					turn, ok := c.Turn(id)
					if !ok || !visible[id] || !slices.Contains(capable, d.TurnPrincipal(turn)) {
						t.Errorf("%s block %d %s: citation %q visible=%v capable=%v", c.ID, block,
							r.AuthorizationID(), id, visible[id], ok && slices.Contains(capable, d.TurnPrincipal(turn)))
					}
				}
			}
		}
	}
}

// CitationsOf is what d.RecordCitations returns for the first faithful record of d's first
// built-in case after its typed payload's source_turn_ids is set to sourceTurnIDs and parsed
// back: how a domain reads the citations a writer gives (docs/FORMATS.md 8.1).
func CitationsOf(t *testing.T, d SourceAuthorityDomain, sourceTurnIDs any) []string {
	t.Helper()
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := d.Replay(cases[0], cases[0].LastBlock())
	if err != nil || len(ledger) == 0 {
		t.Fatalf("replay: %v (%d records)", err, len(ledger))
	}
	payload := d.TypedPayload(ledger[:1])
	payload["authorizations"].([]any)[0].(map[string]any)["source_turn_ids"] = sourceTurnIDs
	records, err := d.ParseTyped(payload)
	if err != nil {
		t.Fatalf("source_turn_ids %q: %v", sourceTurnIDs, err)
	}
	return d.RecordCitations(records[0])
}
