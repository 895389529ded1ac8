package envelope

import (
	"fmt"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

func TestEngineProbesJoinTheChallengeMetadata(t *testing.T) {
	probes := []Probe{{ProbeID: "p1", PairID: "pair", Dimension: "asset", RequestScope: InScope, Request: "r1", Metadata: map[string]any{"family": "f"}}}
	got := EngineProbes(probes, func(p Probe) (any, map[string]any) {
		return p.Request.(string) + "+challenge", map[string]any{"kind": "near"}
	})
	if len(got) != 1 || got[0].Request != "r1+challenge" || got[0].Scope != InScope || fmt.Sprint(got[0].Metadata) != "map[challenge:map[kind:near] family:f]" {
		t.Fatalf("probes %+v", got)
	}
	if probes[0].Metadata["challenge"] != nil {
		t.Fatal("the corpus probe's metadata was changed")
	}
	if EngineProbes(nil, nil) != nil {
		t.Fatal("no probes is no list, as before")
	}
}

func TestCourseFieldsAndChangesTree(t *testing.T) {
	type req struct{ id string }
	fields := func(r *req) map[string]any { return map[string]any{"id": r.id} }
	sub, near := &req{"s"}, &req{"n"}
	if CourseFields(sub, near, "submitted", fields)["id"] != "s" || CourseFields(sub, near, "alternative", fields)["id"] != "n" {
		t.Fatal("course fields")
	}
	if CourseFields(sub, nil, "alternative", fields) != nil {
		t.Fatal("no near-match has no alternative fields")
	}
	until := "2026-01-01T00:00:00Z"
	c := &Changes{Direct: map[string]any{"valid_until": &until, "supersedes": (*string)(nil)}, Scope: Scope{"assets": []string{"a"}, "max": int64(5)}}
	plain := ChangesTree(c, nil)
	if fmt.Sprint(plain) != "map[scope:map[assets:[a] max:5] supersedes:<nil> valid_until:2026-01-01T00:00:00Z]" {
		t.Fatalf("tree %v", plain)
	}
	numbered := ChangesTree(c, func(n int64) any { return fmt.Sprintf("#%d", n) })
	if numbered["scope"].(map[string]any)["max"] != "#5" {
		t.Fatalf("numbered tree %v", numbered)
	}
}

func TestTerminalToolsKinds(t *testing.T) {
	tt := TerminalTools{Submitted: "do", Operational: "do_alt", Escalate: "ask", Decline: "no", Verb: "execution"}
	tools := tt.Tools()
	if len(tools) != 4 || tools[0].Name != "do" || tools[3].Name != "no" {
		t.Fatalf("tools %+v", tools)
	}
	for name, want := range map[string]engine.ToolKind{"do": engine.ActionTool, "do_alt": engine.ActionTool, "ask": engine.EscalationTool, "no": engine.DeclineTool, "other": engine.NotTerminal} {
		if got := tt.Kind(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
