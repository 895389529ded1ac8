package adapt

import (
	"errors"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

type request struct{ At string }

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
		ok   bool
	}{
		{"value", request{At: "t1"}, "t1", true},
		{"pointer", &request{At: "t2"}, "t2", true},
		{"nil pointer", (*request)(nil), "", false},
		{"other type", "t3", "", false},
		{"nil", nil, "", false},
	} {
		got, ok := Value[request](tc.v)
		if ok != tc.ok || got.At != tc.want {
			t.Errorf("%s: Value = %q, %v; want %q, %v", tc.name, got.At, ok, tc.want, tc.ok)
		}
	}
}

func panicOf(f func()) (msg string) {
	defer func() { msg, _ = recover().(string) }()
	f()
	return ""
}

func TestRequestAndSourcePanicNamingWhatWasWanted(t *testing.T) {
	if got := Request[request](&request{At: "t"}, "a test request"); got.At != "t" {
		t.Errorf("Request = %+v", got)
	}
	if msg := panicOf(func() { Request[request](3, "a test request") }); msg != "request int is not a test request" {
		t.Errorf("Request panic %q", msg)
	}
	probed := &request{At: "p"}
	if got := RequestPointer[request](probed, "a test request"); got != probed {
		t.Errorf("RequestPointer of a pointer = %p, want the same pointer %p", got, probed)
	}
	if got := RequestPointer[request](request{At: "v"}, "a test request"); got == nil || got.At != "v" {
		t.Errorf("RequestPointer of a value = %+v", got)
	}
	if msg := panicOf(func() { RequestPointer[request]((*request)(nil), "a test request") }); msg != "request *adapt.request is not a test request" {
		t.Errorf("RequestPointer panic %q", msg)
	}
	c := &engine.Case{ID: "c1", Source: &request{At: "s"}}
	if got := Source[*request](c, "test"); got.At != "s" {
		t.Errorf("Source = %+v", got)
	}
	c.Source = "other"
	if msg := panicOf(func() { Source[*request](c, "test") }); msg != "case c1 is not a test case" {
		t.Errorf("Source panic %q", msg)
	}
}

func TestEngineCases(t *testing.T) {
	parse := func(name string, data []byte) ([]string, []int, error) {
		if len(data) == 0 {
			return nil, nil, errors.New(name + ": empty")
		}
		return strings.Fields(string(data)), []int{3, 7}, nil
	}
	toEngine := func(id string, line int) *engine.Case { return &engine.Case{ID: id, Line: line} }
	cases, err := EngineCases(parse, toEngine, "f", []byte("a b"))
	if err != nil || len(cases) != 2 || cases[0].ID != "a" || cases[0].Line != 3 || cases[1].ID != "b" || cases[1].Line != 7 {
		t.Fatalf("EngineCases = %+v, %v", cases, err)
	}
	if _, err := EngineCases(parse, toEngine, "f", nil); err == nil || err.Error() != "f: empty" {
		t.Errorf("parse error %v, want f: empty", err)
	}
}

func TestScoreOnLedger(t *testing.T) {
	c := &engine.Case{Blocks: []engine.Block{{Index: 0}, {Index: 1}, {Index: 2}}}
	var asked []int
	ledger := func(through int) ([]int, error) {
		asked = append(asked, through)
		if through == 1 {
			return nil, errors.New("block 1 does not replay")
		}
		return []int{through}, nil
	}
	score := func(records []int) engine.ToolScore {
		return engine.ToolScore{Decision: engine.ExecuteRequested, Detail: strings.Repeat("r", records[0])}
	}
	if s := ScoreOnLedger(c, -1, ledger, score); s.Detail != "rr" {
		t.Errorf("through -1 scored on %q, want the last block (2)", s.Detail)
	}
	if s := ScoreOnLedger(c, 1, ledger, score); s.Decision != engine.Invalid || s.Detail != "block 1 does not replay" {
		t.Errorf("ledger error gives %+v, want invalid with the error", s)
	}
	if len(asked) != 2 || asked[0] != 2 || asked[1] != 1 {
		t.Errorf("ledger asked for %v, want [2 1]", asked)
	}
}
