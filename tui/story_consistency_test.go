package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// TestStoryNeverContradictsItself tells every forming chain of each domain's demo run, at its
// default block and at its first false-authority block, and checks that no two steps disagree:
// a chain with a memory-induced failure tells that failure; the executor's action agrees with
// the attribution's "acts" check; the "forms" check agrees with the oracle's reasons; the
// false-authority step claims formation only where the probe forms.
func TestStoryNeverContradictsItself(t *testing.T) {
	ctx := context.Background()
	for _, domain := range demoDomains {
		t.Run(domain, func(t *testing.T) {
			s, runID := demoStore(t, domain)
			rows, err := s.Chains(ctx, runs.ChainFilter{RunID: runID, Forming: true})
			if err != nil || len(rows) == 0 {
				t.Fatalf("no forming chain (err %v)", err)
			}
			for _, r := range rows {
				k := presentChain(r)
				for _, block := range []int{-1, k.FirstFalseAuthority} {
					data, err := LoadStory(ctx, s, s, k.Key, block)
					if err != nil {
						t.Fatalf("%s: %v", k.Key.CaseID, err)
					}
					checkStory(t, buildStory(data), r.AttributedMemoryInduced > 0 && block < 0)
				}
			}
		})
	}
}

func checkStory(t *testing.T, st Story, induced bool) {
	t.Helper()
	where := st.Chain.CaseID + " · " + st.Chain.ConditionID + " @" + itoa(st.Block)
	byKind := map[StepKind]StoryStep{}
	for _, s := range st.Steps {
		byKind[s.Kind] = s
	}
	attr, ok := byKind[StepAttribution]
	if !ok {
		if induced {
			t.Errorf("%s: a memory-induced chain's story stops at %d steps", where, len(st.Steps))
		}
		return
	}
	if induced && attr.Verdict != "memory-induced" {
		t.Errorf("%s: the chain has a memory-induced failure, the story says %q (%s)", where, attr.Verdict, attr.Caption)
	}
	fa, act := byKind[StepFalseAuthority], byKind[StepAction]
	forms := fa.Probe != nil && fa.Probe.Forms != nil && *fa.Probe.Forms
	if claims := strings.Contains(fa.Caption, "which the ledger denies at block"); claims != forms {
		t.Errorf("%s: false-authority step says %q while the probe forms=%v", where, fa.Caption, forms)
	}
	if len(attr.Checks) != 3 {
		t.Fatalf("%s: %d attribution checks", where, len(attr.Checks))
	}
	acts := act.Written != nil && act.Written.Unauthorized
	if attr.Checks[1].OK != acts {
		t.Errorf("%s: step 4 says %q, step 6 says acts=%v", where, act.Caption, attr.Checks[1].OK)
	}
	if strings.Contains(act.Caption, "compliant") && attr.Verdict == "memory-induced" {
		t.Errorf("%s: step 4 says compliant, step 6 memory-induced", where)
	}
	if strings.Contains(attr.Caption, "memory_did_not_form") && attr.Checks[0].OK {
		t.Errorf("%s: step 6 checks %q while the reason is %q", where, attr.Checks[0].Label, attr.Caption)
	}
	if attr.Verdict == "memory-induced" {
		for _, c := range attr.Checks {
			if !c.OK {
				t.Errorf("%s: memory-induced, yet %q does not hold", where, c.Label)
			}
		}
	}
}

// TestStoryShowsTheProbeRequest: the false-authority step shows the probe's request fields
// (procurement's action_time) on screen and in the Markdown export.
func TestStoryShowsTheProbeRequest(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	frames, err := StoryFrames(context.Background(), s, s, k, -1, 120, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) < 3 || !strings.Contains(frames[2], "action_time=") {
		t.Errorf("step 3 does not show the probe's request:\n%s", frames[min(2, len(frames)-1)])
	}
	files, err := Export(context.Background(), ExportOptions{Store: s, Chain: k, Block: -1, Format: "md"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(files[0].Data), "- request: ") {
		t.Error("the Markdown export does not show the probe's request")
	}
}
