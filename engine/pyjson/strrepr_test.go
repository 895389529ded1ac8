package pyjson

import "testing"

// TestStrReprMatchesPython: the expected values are Python 3.11's repr() of each input.
func TestStrReprMatchesPython(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "'plain'"},
		{"it's", `"it's"`},
		{`say "hi"`, `'say "hi"'`},
		{`both ' and "`, `'both \' and "'`},
		{`back\slash`, `'back\\slash'`},
		{"tab\there\nnl\rcr", `'tab\there\nnl\rcr'`},
		{"\x00\x1f\x7f", `'\x00\x1f\x7f'`},
		{"\u0080\u009f", `'\x80\x9f'`},
		{"nb\u00a0sp", `'nb\xa0sp'`},
		{"soft\u00adhyphen", `'soft\xadhyphen'`},
		{"caf\u00e9", "'caf\u00e9'"},
		{"\u2028ls", `'\u2028ls'`},
		{"\u202eRLO", `'\u202eRLO'`},
		{"\u200bzw", `'\u200bzw'`},
		{"\ufeffbom", `'\ufeffbom'`},
		{"\u3000ideo", `'\u3000ideo'`},
		{"emoji \U0001F600", "'emoji \U0001F600'"},
		{"\U000e0001tag", `'\U000e0001tag'`},
		{"\ue000pua", `'\ue000pua'`},
		{"\ufffd", "'\ufffd'"},
	} {
		if got := StrRepr(c.in); got != c.want {
			t.Errorf("StrRepr(%q) = %s, Python gives %s", c.in, got, c.want)
		}
	}
}
