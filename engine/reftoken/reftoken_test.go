package reftoken

import "testing"

func TestReferenceTokenizer(t *testing.T) {
	tc := Reference()
	if tc.Name() != CL100K {
		t.Fatalf("tokenizer %s, want cl100k_base from the embedded vocabulary", tc.Name())
	}
	if n := tc.Count("hello world"); n != 2 {
		t.Fatalf(`"hello world" = %d tokens, want 2`, n)
	}
}

func TestRegexFallback(t *testing.T) {
	fb := RegexFallback()
	cases := map[string]int{
		"hello world":           2,
		"max_amount: 4,900 USD": 6, // max_amount : 4 , 900 USD
		"naïve café":            2,
		"a\u00a0b\x1fc":         3,
		"":                      0,
	}
	for text, want := range cases {
		if got := fb.Count(text); got != want {
			t.Errorf("%q: %d tokens, want %d", text, got, want)
		}
	}
}
