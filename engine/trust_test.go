package engine

import "testing"

func TestTrustLattice(t *testing.T) {
	levels := TrustLevels()
	want := []string{"UNKNOWN", "EXTERNAL", "TRUSTED_TOOL", "USER_HISTORY", "USER_CONFIRMED", "SYSTEM"}
	if len(levels) != len(want) {
		t.Fatalf("levels %v", levels)
	}
	for i, l := range levels {
		if l.String() != want[i] {
			t.Errorf("level %d is %s, want %s", i, l, want[i])
		}
		back, err := ParseTrust(want[i])
		if err != nil || back != l {
			t.Errorf("ParseTrust(%s) = %v, %v", want[i], back, err)
		}
		if i > 0 && (!l.Meets(levels[i-1]) || levels[i-1].Meets(l)) {
			t.Errorf("%s and %s are not ordered", levels[i-1], l)
		}
	}
	if _, err := ParseTrust("user_confirmed"); err == nil {
		t.Error("level names are exact")
	}
	var zero Trust
	if zero != TrustUnknown {
		t.Error("the zero level must be UNKNOWN (fails closed)")
	}
	if Trust(9).String() != "Trust(9)" {
		t.Error("out-of-range level")
	}
	tests := []struct {
		in   []Trust
		want Trust
	}{
		{nil, TrustUnknown},
		{[]Trust{TrustSystem}, TrustSystem},
		{[]Trust{TrustUserConfirmed, TrustExternal, TrustSystem}, TrustExternal},
		{[]Trust{TrustUserHistory, TrustUnknown}, TrustUnknown},
	}
	for _, tc := range tests {
		if got := LeastTrust(tc.in...); got != tc.want {
			t.Errorf("LeastTrust(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestRiskClasses(t *testing.T) {
	tests := []struct {
		class RiskClass
		name  string
		need  Trust
	}{
		{RiskRead, "READ", TrustExternal},
		{RiskNav, "NAV", TrustUserHistory},
		{RiskEffect, "EFFECT", TrustUserConfirmed},
		{RiskPurchase, "PURCHASE", TrustUserConfirmed},
		{RiskCredential, "CREDENTIAL", TrustUserConfirmed},
	}
	for _, tc := range tests {
		if tc.class.String() != tc.name || tc.class.RequiredTrust() != tc.need {
			t.Errorf("%s needs %s, want %s %s", tc.class, tc.class.RequiredTrust(), tc.name, tc.need)
		}
	}
	if TrustSystem.Meets(RiskNone.RequiredTrust()) {
		t.Error("an undeclared tool must need more than any level")
	}
}

func TestOpensWith(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Hand-off note: auth_x", true},
		{"  \n handoff from my notes", true},
		{"The hand-off was fine.", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := OpensWith(tc.text, "hand-off", "HANDOFF"); got != tc.want {
			t.Errorf("OpensWith(%q) = %v", tc.text, got)
		}
	}
}
