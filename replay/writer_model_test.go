package replay

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

var profileIDPattern = regexp.MustCompile(`The single existing profile ID is "(profile_[0-9a-f]+)"`)

func userText(req map[string]any) string {
	msgs := req["messages"].([]any)
	return msgs[len(msgs)-1].(map[string]any)["content"].(string)
}

func patchDoc(req map[string]any, patches ...map[string]any) reply {
	id := profileIDPattern.FindStringSubmatch(userText(req))[1]
	if patches == nil {
		patches = []map[string]any{}
	}
	args, _ := json.Marshal(map[string]any{"json_doc_id": id, "planned_edits": "update", "patches": patches})
	return completion(nil, fakeCall{"PatchDoc", string(args)})
}

func replaceContent(text string) map[string]any {
	return map[string]any{"op": "replace", "path": "/content", "value": text}
}

// TestModelWriterOverLoopback drives the PatchDoc writer against a loopback server: accepted,
// no_change, invalid_payload then repaired, writer_error twice (state retained), a "/-"
// append to the string, and a one-shot typed chain whose only update fails (the empty
// profile is synthesized).
func TestModelWriterOverLoopback(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	d, cases := builtinCases(t)
	srv := newFakeServer(t, act,
		func(r map[string]any) reply {
			return patchDoc(r, replaceContent("CFO exception pending (src_3fa81c07_004)."))
		},
		func(r map[string]any) reply { return patchDoc(r) },
		func(r map[string]any) reply { return patchDoc(r, replaceContent("Granted per src_3fa81c07_040.")) },
		func(r map[string]any) reply {
			if !strings.Contains(userText(r), "The last update could not be saved by the memory service. Correct this issue while updating the same accepted profile: source_turn_ids were not visible to the writer: src_3fa81c07_040") {
				t.Errorf("repair request lacks the repair instruction: %.300s", userText(r))
			}
			return patchDoc(r, replaceContent("Granted per src_3fa81c07_019."))
		},
		func(map[string]any) reply { return completion(nil, fakeCall{"Memory", `{}`}) },
		func(map[string]any) reply {
			return completion(nil, fakeCall{"PatchDoc", `{"json_doc_id": "profile_wrong", "planned_edits": "", "patches": []}`})
		},
		func(r map[string]any) reply {
			return patchDoc(r, map[string]any{"op": "add", "path": "/content/-", "value": " Still active."})
		},
		func(map[string]any) reply { return errorReply(400, "bad request") },
		func(map[string]any) reply { return errorReply(400, "bad request") },
	)
	opts := scriptedOptions(t, d, cases[:1], filepath.Join(t.TempDir(), "run"), 5)
	opts.Conditions = []engine.Condition{mustCondition(t, "incremental_text"), mustCondition(t, "one_shot_typed")}
	opts.Writer = NewModelWriter(NewModelClient(testModel(srv.URL), fastRetry, nil))
	opts.Concurrency = 1
	sum := mustRun(t, opts)
	if sum.Status != rundir.StatusCompleted {
		t.Fatalf("status %s", sum.Status)
	}
	run := openRun(t, opts.Out, false)
	var statuses []string
	for _, r := range run.Files[rundir.MemoryAttempts] {
		statuses = append(statuses, r.Str("status"))
	}
	want := "accepted no_change invalid_payload accepted writer_error writer_error accepted writer_error writer_error"
	if got := strings.Join(statuses, " "); got != want {
		t.Fatalf("attempt statuses\n got %s\nwant %s", got, want)
	}
	attempts := run.Files[rundir.MemoryAttempts]
	if attempts[3].Int("attempt_index") != 2 || attempts[3].Str("repair_of_attempt_id") != attempts[2].Str("attempt_id") {
		t.Errorf("repair attempt not linked: %v", attempts[3].Tree)
	}
	if !strings.HasPrefix(attempts[4].Str("detail"), "ValueError: LangMem model called 'Memory'; expected 'PatchDoc'") {
		t.Errorf("writer_error detail %q", attempts[4].Str("detail"))
	}
	var states []string
	for _, r := range run.Files[rundir.MemoryStates] {
		states = append(states, r.Str("status"))
	}
	if got := strings.Join(states, " "); got != "accepted no_change accepted retained_after_failed_update accepted retained_after_failed_update" {
		t.Fatalf("state statuses %s", got)
	}
	mems := run.Files[rundir.Memories]
	// incremental_text: block 0, block 2 (repaired), block 4 (appended); one_shot_typed: the
	// synthesized empty profile.
	if len(mems) != 4 {
		t.Fatalf("%d memories", len(mems))
	}
	if got := mems[2].Str("payload"); got != "Granted per src_3fa81c07_019. Still active." {
		t.Errorf("string append produced %q", got)
	}
	if mems[1].Str("parent_memory_id") != mems[0].Str("memory_id") {
		t.Error("parent ids not chained")
	}
	empty := mems[3].Tree["payload"].(map[string]any)
	if len(empty["authorizations"].([]any)) != 0 || attempts[8].Str("retained_memory_id") != mems[3].Str("memory_id") {
		t.Errorf("empty profile not synthesized: %v / %v", empty, attempts[8].Tree["retained_memory_id"])
	}
	if writerContexts := checkWriterContexts(t, run); writerContexts != 9 {
		t.Errorf("%d writer contexts, want 9", writerContexts)
	}
	first := srv.bodies[0]
	if tc := first["tool_choice"].(map[string]any); tc["function"].(map[string]any)["name"] != "PatchDoc" {
		t.Errorf("tool_choice %v", first["tool_choice"])
	}
	sys := first["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "schema_type=\"Memory\">\n{'content': ''}\n</instance>") {
		t.Errorf("system message: %q", sys)
	}
	assertNoSecret(t, opts.Out, testAPIKey)
}
