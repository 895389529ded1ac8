package cause

import (
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// TestStatesValueInWriterForms: a turn states a value in any of the forms a writer reads, and
// not when only a different value (or a longer number) is there.
func TestStatesValueInWriterForms(t *testing.T) {
	cases := []struct {
		text  string
		value Value
		want  bool
	}{
		{"the cap is now 11,500 for the quarter", Value{Text: "11500"}, true},
		{"cap 11500", Value{Text: "11500"}, true},
		{"approved up to USD 11.5k", Value{Text: "11500"}, true},
		{"about 1.2 million in total", Value{Text: "1200000"}, true},
		{"cap 115000", Value{Text: "11500"}, false},
		{"limit price 100.00 per unit", Value{Text: "100000000", Scale: 1_000_000}, true},
		{"valid through 2027-02-01", Value{Text: "2027-02-01T00:00:00Z", Kind: engine.KindTimestamp}, true},
		{"runs until February 1, 2027", Value{Text: "2027-02-01T00:00:00Z"}, true},
		{"runs until 1st Feb", Value{Text: "2027-02-01T00:00:00Z"}, true},
		{"runs until March 1", Value{Text: "2027-02-01T00:00:00Z"}, false},
		{"instruments=AIRPORT-RB-2032 | MUNI-VRN-2029", Value{Text: "MUNI-VRN-2029"}, true},
		{"instruments=MUNI-VRN-20290", Value{Text: "MUNI-VRN-2029"}, false},
		{"we may restart service on auth", Value{Text: "restart_service"}, true},
		{"sides=buy | sell", Value{Text: "sell"}, true},
		{"the reseller line", Value{Text: "sell"}, false},
	}
	for _, c := range cases {
		m := readMentions(c.text)
		if _, got := m.states(c.value); got != c.want {
			t.Errorf("%q states %q: got %v, want %v", c.text, c.value.Text, got, c.want)
		}
	}
}

// TestRelayLines: forwarded copies, queue and status lines read as relays; a principal's own
// plain message does not.
func TestRelayLines(t *testing.T) {
	for text, want := range map[string]bool{
		"The OMS release queue still shows the following line":        true,
		"Fwd: approval from the CFO":                                  true,
		"status=active; max=900; until=2027-02-01":                    true,
		"I approve the purchase of up to 9,000 for the lab supplies.": false,
	} {
		if got := isRelay(text); got != want {
			t.Errorf("isRelay(%q) = %v, want %v", text, got, want)
		}
	}
}
