package main

import (
	"path/filepath"
	"testing"
)

type audienceRowT struct {
	Arm       string `json:"arm"`
	Condition string `json:"condition_id"`
	Exposure  struct {
		Contexts          int `json:"contexts"`
		ContextsExposed   int `json:"contexts_exposed"`
		ForbiddenAdmitted int `json:"forbidden_admitted"`
		ForbiddenPresent  int `json:"forbidden_present"`
	} `json:"exposure"`
	EntitledRecall struct {
		Kept    int `json:"kept"`
		Present int `json:"present"`
	} `json:"entitled_recall"`
	Substitutions int `json:"substitutions"`
}

// TestAudienceLabMustShow runs the built-in multi-party corpus of every domain (scripted
// writer, every writer condition, built-in executor) and checks the audience lab's claims:
// input binding with intersection admits no forbidden item in any context; unscoped retrieval
// exposes some; suppression loses entitled items that intersection keeps; the identity
// policies are measured on the unresolved-viewer requests.
func TestAudienceLabMustShow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three multi-party corpora")
	}
	for _, domain := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(domain, func(t *testing.T) {
			tmp := t.TempDir()
			out, db := filepath.Join(tmp, "run"), filepath.Join(tmp, "ws.db")
			runOK(t, "run", "--domain", domain, "--builtin", "--multiparty", "--conditions", "one_shot_text,one_shot_typed,incremental_text,incremental_typed", "--out", out)
			id := importRun(t, db, out)
			var doc struct {
				Table    []audienceRowT `json:"table"`
				Identity []struct {
					Arm              string `json:"arm"`
					Exposed          int    `json:"exposed"`
					ForbiddenPresent int    `json:"forbidden_present"`
					Lost             int    `json:"lost"`
					EntitledPresent  int    `json:"entitled_present"`
				} `json:"identity_policies"`
			}
			raw := runJSON(t, &doc, "safeguards", "--db", db, "--run", id, "--policy", "audience_bound", "--json")
			assertJSONKeys(t, "audience table", raw, "arm", "condition_id", "exposure", "contexts", "contexts_exposed", "forbidden_admitted", "forbidden_present",
				"entitled_recall", "kept", "present", "substitutions", "unauthorized_action_rate", "authorized_success_rate")
			arms := map[string]bool{}
			exposedUnscoped, keptInput, keptSuppressed := 0, 0, 0
			for _, r := range doc.Table {
				arms[r.Arm] = true
				switch r.Arm {
				case "audience_bound_input":
					if r.Exposure.ForbiddenAdmitted != 0 || r.Exposure.ContextsExposed != 0 {
						t.Errorf("%s: audience_bound_input admitted %d forbidden items in %d contexts", r.Condition, r.Exposure.ForbiddenAdmitted, r.Exposure.ContextsExposed)
					}
					keptInput += r.EntitledRecall.Kept
				case "unscoped":
					exposedUnscoped += r.Exposure.ContextsExposed
				case "audience_bound_suppression":
					keptSuppressed += r.EntitledRecall.Kept
				}
			}
			for _, a := range []string{"unscoped", "session_silo", "audience_bound_input", "audience_bound_cited", "audience_bound_suppression", "fail_open", "public_only", "quarantine"} {
				if !arms[a] {
					t.Errorf("no row for arm %s", a)
				}
			}
			if exposedUnscoped == 0 {
				t.Error("unscoped retrieval exposed no forbidden item: the corpus shows nothing")
			}
			if keptSuppressed >= keptInput {
				t.Errorf("suppression kept %d entitled items, intersection %d: suppression should lose the merged records", keptSuppressed, keptInput)
			}
			if len(doc.Identity) != 3 {
				t.Fatalf("identity table: %+v", doc.Identity)
			}
			t.Logf("unscoped contexts exposed %d; entitled kept: intersection %d, suppression %d; identity %+v", exposedUnscoped, keptInput, keptSuppressed, doc.Identity)
		})
	}
}
