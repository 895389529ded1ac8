package multiparty_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/domains/multiparty"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/safeguards"
)

// TestAudienceBoundNotApplicableWithoutSidecar: without a sidecar, or without a request, the
// policy never decides; with both, every record gets a verdict naming its audience and the
// viewers, and the grantee's context keeps what the outsider's loses.
func TestAudienceBoundNotApplicableWithoutSidecar(t *testing.T) {
	d, _ := domains.Get("procurement")
	name, data := d.BuiltinCorpus()
	cases, err := d.ParseCorpus(name, data)
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	recs, _ := d.Replay(c, c.LastBlock())
	ev := engine.Evidence{Kind: engine.MemoryEvidence, Payload: d.TypedPayload(recs)}
	req := engine.AudienceRequest{ID: "r", ProbeID: c.Probes[0].ID, Principal: "x", Channel: "y"}
	_, err = safeguards.AudienceBound().Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: c, Block: c.LastBlock(), Evidence: ev, Request: &req})
	if !errors.Is(err, engine.ErrNotApplicable) {
		t.Fatalf("no sidecar: %v, want not applicable", err)
	}
	mp, err := multiparty.Builtin("procurement")
	if err != nil {
		t.Fatal(err)
	}
	mc := mp.Cases[0]
	recs, _ = d.Replay(mc, mc.LastBlock())
	ev = engine.Evidence{Kind: engine.MemoryEvidence, Payload: d.TypedPayload(recs)}
	if _, err := safeguards.AudienceBound().Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: mc, Block: mc.LastBlock(), Evidence: ev}); !errors.Is(err, engine.ErrNotApplicable) {
		t.Fatalf("no request: %v, want not applicable", err)
	}
	kept := map[string]int{}
	for _, r := range mc.Audience.Requests[:2] {
		r := r
		g, err := safeguards.AudienceBound().Memory.TransformMemory(engine.MemoryInput{Domain: d, Case: mc, Block: mc.LastBlock(), Evidence: ev, Request: &r})
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Records) != len(recs) {
			t.Fatalf("%d decisions for %d records", len(g.Records), len(recs))
		}
		for _, rd := range g.Records {
			if !strings.Contains(rd.Reasons[0], "audience=") || !strings.Contains(rd.Reasons[0], "viewers=") {
				t.Errorf("reason %q names no audience or viewers", rd.Reasons[0])
			}
			if rd.Kept {
				kept[r.Principal]++
			}
		}
	}
	if kept[mc.Audience.Requests[0].Principal] == 0 || kept[mc.Audience.Requests[1].Principal] != 0 {
		t.Errorf("kept per requester %v: the grantee should keep the grant, the outsider nothing", kept)
	}
}
