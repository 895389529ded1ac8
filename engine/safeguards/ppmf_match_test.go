package safeguards

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCanonicalMatching(t *testing.T) {
	tests := []struct {
		text, value string
		want        bool
	}{
		{"up to USD 4,800, valid", "4800", true},
		{"up to USD 14,800", "4800", false},
		{"I issue auth_x_2 today", "auth_x", false},
		{"I issue auth_x today", "auth_x", true},
		{"GRANT_ID=IH-A-5101; issuer", "ih-a-5101", true},
		{"assets idp-prod-421", "idp-prod-42", false},
		{"(auth_x)", "auth_x", true},
		{"anything", "", false},
	}
	for _, tc := range tests {
		if got := containsToken(normaliseText(tc.text), normaliseText(tc.value)); got != tc.want {
			t.Errorf("%q carries %q: %v, want %v", tc.text, tc.value, got, tc.want)
		}
	}
	if !containsAll("buy | sell limit", []string{"buy", "sell"}) || containsAll("buy only", []string{"buy", "sell"}) {
		t.Error("containsAll")
	}
	values := []struct {
		in   any
		want []string
	}{
		{nil, nil},
		{"", nil},
		{"USD", []string{"USD"}},
		{[]string{"a", "", "b"}, []string{"a", "b"}},
		{[]any{"a", json.Number("7")}, []string{"a", "7"}},
		{int64(4800), []string{"4800"}},
		{800, []string{"800"}},
	}
	for _, v := range values {
		if got := valueTexts(v.in); !reflect.DeepEqual(got, v.want) {
			t.Errorf("valueTexts(%#v) = %q, want %q", v.in, got, v.want)
		}
	}
}
