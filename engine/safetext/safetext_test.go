package safetext

import (
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello, wörld 你好", "hello, wörld 你好"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"clear screen", "before\x1b[2Jafter", "before␛after"},
		{"sgr colour", "\x1b[1;31mred\x1b[0m", "␛red␛"},
		{"osc 52 bel", "x\x1b]52;c;ZXZpbA==\x07y", "x␛y"},
		{"osc 52 st", "x\x1b]52;c;ZXZpbA==\x1b\\y", "x␛y"},
		{"osc 8 link", "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\", "␛click␛"},
		{"osc title", "\x1b]0;pwned\x07ok", "␛ok"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "a␛b"},
		{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", "a␛b"},
		{"unterminated osc cut to end", "a\x1b]52;c;AAAA", "a␛"},
		{"esc reset", "a\x1bcb", "a␛b"},
		{"esc charset", "a\x1b(Bb", "a␛b"},
		{"lone esc at end", "a\x1b", "a␛"},
		{"8-bit csi", "a\u009b2Jb", "a␛b"},
		{"8-bit osc", "a\u009d52;c;AAAA\u009cb", "a␛b"},
		{"c1 other", "a\u0085b", "a␛b"},
		{"bel", "ding\x07", "ding�"},
		{"carriage return", "safe\rEVIL", "safe�EVIL"},
		{"backspace", "ab\x08c", "ab�c"},
		{"del", "a\x7fb", "a�b"},
		{"nul", "a\x00b", "a�b"},
		{"invalid utf8", "a\xffb", "a�b"},
		{"csi malformed stops at control", "a\x1b[12\nb", "a␛\nb"},
		{"bidi override", "user\u202egnp.exe", "user<U+202E>gnp.exe"},
		{"bidi embeddings", "\u202a\u202b\u202c\u202d", "<U+202A><U+202B><U+202C><U+202D>"},
		{"bidi isolates", "a\u2066b\u2067c\u2068d\u2069", "a<U+2066>b<U+2067>c<U+2068>d<U+2069>"},
		{"zero width", "ad\u200bmin\u200c\u200d\u2060", "ad<U+200B>min<U+200C><U+200D><U+2060>"},
		{"marks", "a\u200e\u200f\u061c", "a<U+200E><U+200F><U+061C>"},
		{"bom", "\ufeffcase_1", "<U+FEFF>case_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.ContainsAny(got, "\x1b\x07\r\x00\u009b\u009d") {
				t.Errorf("control survived in %q", got)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	if got := Line("a\nb\tc\x1b[Kd"); got != "a b c␛d" {
		t.Errorf("got %q", got)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;QQ==\x07", "\x1b[2J", "\u009b31m", "plain", "\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f || IsInvisibleFormat(r) {
				t.Fatalf("control %U survived Text(%q) = %q", r, s, out)
			}
		}
		if Text(out) != out {
			t.Fatalf("not idempotent: %q", s)
		}
	})
}

func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb":        "a       b",
		"\tx":         "        x",
		"abcdefgh\tz": "abcdefgh        z",
		"ä\tb\nc\td":  "ä       b\nc       d",
		"none":        "none",
	} {
		if got := ExpandTabs(in); got != want {
			t.Errorf("ExpandTabs(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Print("x\t\x1b[2J"); got != "x       ␛" {
		t.Errorf("Print: %q", got)
	}
}

// TestShellQuote: the quoted form holds no control or invisible character (what is shown is
// what is copied) and a POSIX shell with $'...' reads it back as the original string.
func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"run_1":                    "run_1",
		"":                         "''",
		"a b":                      "'a b'",
		"it's":                     `$'it\'s'`,
		"x\x1b[2J\x1b]52;c;QQ==\a": `$'x\x1b[2J\x1b]52;c;QQ==\x07'`,
		"evil\u202etxt":            `$'evil\u202etxt'`,
		"bad\xffbyte":              `$'bad\xffbyte'`,
		"tab\tnl\n":                `$'tab\tnl\n'`,
		"back\\slash":              `'back\slash'`,
		"wörld":                    "'wörld'",
	} {
		got := ShellQuote(in)
		if got != want {
			t.Errorf("ShellQuote(%q) = %q, want %q", in, got, want)
		}
		if Text(got) != got {
			t.Errorf("ShellQuote(%q) = %q is not safe to show", in, got)
		}
	}
}
