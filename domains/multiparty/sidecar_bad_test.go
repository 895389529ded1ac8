package multiparty

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/audience"
)

// mutate decodes the built-in procurement sidecar, lets f change its first case, and encodes it.
func mutate(t *testing.T, f func(top map[string]any, c map[string]any)) ([]byte, string) {
	t.Helper()
	mp, err := Builtin("procurement")
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(mp.SidecarData, &top); err != nil {
		t.Fatal(err)
	}
	id := mp.Sidecar.Order[0]
	f(top, top["cases"].(map[string]any)[id].(map[string]any))
	b, _ := json.Marshal(top)
	return b, id
}

// TestSidecarBadInputs: every bad input is an error naming the file, the case and the field.
func TestSidecarBadInputs(t *testing.T) {
	mp, err := Builtin("procurement")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, want string
		f          func(top, c map[string]any)
	}{
		{"unknown top key", "field extra: unknown key", func(top, c map[string]any) { top["extra"] = 1 }},
		{"unknown case key", "unknown key", func(top, c map[string]any) { c["audiences"] = []any{} }},
		{"unknown turn", `unknown turn "no_such_turn"`, func(top, c map[string]any) {
			c["turn_channels"].(map[string]any)["no_such_turn"] = "team_room"
		}},
		{"unknown probe", `unknown probe "no_such_probe"`, func(top, c map[string]any) {
			c["requests"].([]any)[0].(map[string]any)["probe"] = "no_such_probe"
		}},
		{"unknown principal", `unknown principal "nobody"`, func(top, c map[string]any) {
			c["requests"].([]any)[0].(map[string]any)["principal"] = "nobody"
		}},
		{"unknown channel", `unknown channel "back_room"`, func(top, c map[string]any) {
			c["requests"].([]any)[0].(map[string]any)["channel"] = "back_room"
		}},
		{"grant by a principal who cannot grant", "cannot grant", func(top, c map[string]any) {
			req := c["requests"].([]any)[0].(map[string]any)
			var turn string
			for k := range c["turn_channels"].(map[string]any) {
				turn = k
				break
			}
			c["grants"] = []any{map[string]any{"id": "g", "object": map[string]any{"turn": turn}, "to": map[string]any{"channel": "team_room"}, "by": req["principal"], "at_turn": turn}}
		}},
		{"bad visibility", "is not private, shared or public", func(top, c map[string]any) {
			c["channels"].([]any)[0].(map[string]any)["visibility"] = "secret"
		}},
		{"wrong format", "is not", func(top, c map[string]any) { top["format"] = "v0" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, id := mutate(t, tc.f)
			f, err := audience.Parse("side.audience.json", data)
			if err == nil {
				_, err = audience.Bind(f, mp.Domain, freshCases(t))
			}
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			if !strings.Contains(msg, "side.audience.json") || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q lacks the file or %q", msg, tc.want)
			}
			if tc.name != "unknown top key" && tc.name != "wrong format" && !strings.Contains(msg, "case "+id) {
				t.Errorf("error %q does not name case %s", msg, id)
			}
		})
	}
}

// freshCases are the built-in multi-party cases parsed anew (no audience attached).
func freshCases(t *testing.T) []*engine.Case {
	t.Helper()
	mp, _ := Builtin("procurement")
	cs, err := mp.Domain.ParseCorpus(mp.Name, mp.Data)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// FuzzSidecar: the reader never panics, and whatever it accepts binds or is refused cleanly.
func FuzzSidecar(f *testing.F) {
	mp, err := Builtin("procurement")
	if err != nil {
		f.Fatal(err)
	}
	one := &audience.File{Name: "seed", DomainID: mp.Sidecar.DomainID, CorpusVersion: mp.Sidecar.CorpusVersion,
		Cases: map[string]*audience.Entry{mp.Sidecar.Order[0]: mp.Sidecar.Cases[mp.Sidecar.Order[0]]}, Order: mp.Sidecar.Order[:1]}
	seed, err := audience.Encode(one)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"format":"ealscope_audience_v1","domain_id":"procurement","corpus_version":"multiparty_ealscope_v1","cases":{}}`))
	cs, err := mp.Domain.ParseCorpus(mp.Name, mp.Data)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := audience.Parse("fuzz.audience.json", data)
		if err != nil {
			return
		}
		// Bind attaches audiences to the cases: a later input overwrites them.
		_, _ = audience.Bind(sc, mp.Domain, cs)
	})
}
