package safeguardtests_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// TestTrustSchemaOnCorpora checks each domain's trust schema over its built-in corpus and 40
// generated cases: every turn is placed (none UNKNOWN), every ledger event's source turn is
// trusted at least USER_CONFIRMED, and no other turn of a principal unable to grant that
// names an authorization is: relayed copies, claims and hand-offs stay below what an action
// needs.
func TestTrustSchemaOnCorpora(t *testing.T) {
	for _, id := range ppmfDomains {
		d, builtin := builtinCases(t, id)
		_, generated := generatedCases(t, id, 40, 7)
		sar := d.(engine.SourceAuthorityRules)
		tr := d.(engine.TrustRules)
		levels := map[engine.Trust]int{}
		for _, c := range append(builtin, generated...) {
			capable := sar.AuthorityCapablePrincipals(c)
			sources := map[string]bool{}
			var ids []string
			for _, e := range c.Events {
				for _, s := range e.SourceTurnIDs {
					sources[s] = true
				}
				ids = append(ids, e.AuthorizationID)
			}
			for _, b := range c.Blocks {
				for _, tu := range b.Turns {
					isCapable := slices.Contains(capable, sar.TurnPrincipal(tu))
					a := tr.TurnTrust(c, tu, isCapable)
					levels[a.Level]++
					if a.Level == engine.TrustUnknown || a.Rule == "" {
						t.Errorf("%s %s %s: placed %s by %q", id, c.ID, tu.ID, a.Level, a.Rule)
					}
					if sources[tu.ID] && !a.Level.Meets(engine.TrustUserConfirmed) {
						t.Errorf("%s %s: ledger source %s trusts %s (%s)", id, c.ID, tu.ID, a.Level, a.Rule)
					}
					// The one exception is a signed policy register (cybersecurity's standing response
					// policy): SYSTEM by the paper's lattice though it grants nothing
					// (docs/POLICIES.md, PPMF: what PPMF does not see).
					if !sources[tu.ID] && !isCapable && a.Level.Meets(engine.TrustUserConfirmed) && a.Rule != envelope.RuleSystemPolicy {
						t.Errorf("%s %s: %s of %s trusts %s (%s)", id, c.ID, tu.ID, sar.TurnPrincipal(tu), a.Level, a.Rule)
					}
					named := false
					for _, aid := range ids {
						named = named || bytes.Contains([]byte(tu.Content), []byte(aid))
					}
					if named && !sources[tu.ID] && a.Level.Meets(engine.TrustUserConfirmed) && !isCapable && a.Rule != envelope.RuleSystemPolicy {
						t.Errorf("%s %s: %s names an authorization and trusts %s", id, c.ID, tu.ID, a.Level)
					}
				}
			}
		}
		for _, want := range []engine.Trust{engine.TrustExternal, engine.TrustUserHistory} {
			if levels[want] == 0 {
				t.Errorf("%s: no turn placed at %s (levels %v)", id, want, levels)
			}
		}
		if levels[engine.TrustUserConfirmed]+levels[engine.TrustSystem] == 0 {
			t.Errorf("%s: no authority turn (levels %v)", id, levels)
		}
	}
}

// TestToolRiskClassesCoverTools: every tool a domain shows the executor has a declared
// class, action tools need USER_CONFIRMED, and an unknown tool has none.
func TestToolRiskClassesCoverTools(t *testing.T) {
	for _, id := range ppmfDomains {
		d, _ := builtinCases(t, id)
		tr := d.(engine.TrustRules)
		var declared []string
		for _, tc := range tr.ToolRiskClasses() {
			declared = append(declared, tc.Tool)
		}
		for _, tool := range d.Tools() {
			if !slices.Contains(declared, tool.Name) {
				t.Errorf("%s: tool %s has no risk class", id, tool.Name)
			}
			class := tr.ToolRisk(tool.Name, nil)
			switch d.ToolKind(tool.Name) {
			case engine.ActionTool:
				if class.RequiredTrust() != engine.TrustUserConfirmed {
					t.Errorf("%s: action tool %s is %s", id, tool.Name, class)
				}
			case engine.EscalationTool:
				if class != engine.RiskNav {
					t.Errorf("%s: escalation tool %s is %s", id, tool.Name, class)
				}
			case engine.DeclineTool:
				if class != engine.RiskRead {
					t.Errorf("%s: decline tool %s is %s", id, tool.Name, class)
				}
			}
		}
		if c := tr.ToolRisk("transfer_funds", nil); c != engine.RiskNone {
			t.Errorf("%s: unknown tool has class %s", id, c)
		}
	}
}
