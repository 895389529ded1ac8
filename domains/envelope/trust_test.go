package envelope

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// TestTrustTableRules walks every rule of a TrustTable in its order of precedence.
func TestTrustTableRules(t *testing.T) {
	tt := TrustTable{
		RelayedChannels:    []string{"handoff"},
		RelayedPrefixes:    []string{"OMS handoff"},
		RelayedMarkers:     []string{"pasted unchanged"},
		SignedChannels:     []string{"signed "},
		SignedChangeMarker: "SIGNED_CHANGE_SET",
		RegisterChannels:   []string{"mandate register"},
		SystemSpeakers:     []string{"policy_registry"},
		ExternalSpeakers:   []string{"vendor_engineer"},
		ExternalChannels:   []string{"market note"},
	}
	turn := func(speaker, text string) engine.Turn { return engine.Turn{ID: "t", ActorID: speaker, Content: text} }
	tests := []struct {
		name     string
		channel  string
		turn     engine.Turn
		capable  bool
		want     engine.Trust
		wantRule string
	}{
		{"no speaker", "signed console", turn("", "SIGNED_CHANGE_SET"), true, engine.TrustUnknown, RuleNoPrincipal},
		{"hand-off channel, even the officer's", "operations handoff", turn("officer", "grants"), true, engine.TrustExternal, RuleRelayedText},
		{"relayed prefix", "operations ticket", turn("ops", "  oms HANDOFF: row"), false, engine.TrustExternal, RuleRelayedText},
		{"relayed marker", "incident channel", turn("ops", "digest pasted unchanged"), false, engine.TrustExternal, RuleRelayedText},
		{"signed change set", "Signed Console", turn("officer", "SIGNED_CHANGE_SET X, ATOMIC"), true, engine.TrustSystem, RuleSignedChange},
		{"change-set marker off a signed channel", "incident channel", turn("officer", "SIGNED_CHANGE_SET X"), true, engine.TrustUserConfirmed, RuleAuthority},
		{"register entry", "signed mandate register", turn("officer", "Signed mandate entry"), true, engine.TrustSystem, RuleSignedRegister},
		{"the authority elsewhere", "signed console", turn("officer", "I issue grant G"), true, engine.TrustUserConfirmed, RuleAuthority},
		{"a non-authority on the register", "mandate register", turn("trader", "entry"), false, engine.TrustUserHistory, RuleMember},
		{"signed policy register", "signed response policy", turn("policy_registry", "standing policy"), false, engine.TrustSystem, RuleSystemPolicy},
		{"registry off a signed channel", "chat", turn("policy_registry", "policy"), false, engine.TrustUserHistory, RuleMember},
		{"vendor speaker", "incident channel", turn("vendor_engineer", "advice"), false, engine.TrustExternal, RuleExternal},
		{"market channel", "market note", turn("strategist", "depth"), false, engine.TrustExternal, RuleExternal},
		{"member", "risk channel", turn("risk_analyst", "exposure"), false, engine.TrustUserHistory, RuleMember},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tt.TurnTrust(tc.channel, tc.turn, tc.capable)
			if got.Level != tc.want || got.Rule != tc.wantRule {
				t.Errorf("got %s (%s), want %s (%s)", got.Level, got.Rule, tc.want, tc.wantRule)
			}
		})
	}
}

func TestTurnChannel(t *testing.T) {
	blocks := []Block{{BlockIndex: 0, Turns: []Turn{{TurnID: "a", Channel: "chat"}}}, {BlockIndex: 1, Turns: []Turn{{TurnID: "b", Channel: "bridge"}}}}
	if got := TurnChannel(blocks, engine.Turn{ID: "b", BlockIndex: 1}); got != "bridge" {
		t.Errorf("got %q", got)
	}
	if got := TurnChannel(blocks, engine.Turn{ID: "b", BlockIndex: 0}); got != "bridge" {
		t.Errorf("a turn given the wrong block: got %q", got)
	}
	if got := TurnChannel(blocks, engine.Turn{ID: "z"}); got != "" {
		t.Errorf("unknown turn: got %q", got)
	}
}
