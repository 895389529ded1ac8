package tui

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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sanitize(tt.in)
			if got != tt.want {
				t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.ContainsAny(got, "\x1b\x07\r\x00\u009b\u009d") {
				t.Errorf("control survived in %q", got)
			}
		})
	}
}

func TestSanitizeLine(t *testing.T) {
	if got := sanitizeLine("a\nb\tc\x1b[Kd"); got != "a b c␛d" {
		t.Errorf("got %q", got)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;QQ==\x07", "\x1b[2J", "\u009b31m", "plain", "\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := sanitize(s)
		for _, r := range out {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("control %U survived sanitize(%q) = %q", r, s, out)
			}
		}
		if sanitize(out) != out {
			t.Fatalf("not idempotent: %q", s)
		}
	})
}
