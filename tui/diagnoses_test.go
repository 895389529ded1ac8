package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// TestJudgesLineInProbesPane: a judges' diagnosis imported for a chain of the scripted run at
// its first false-authority block shows in the probes pane beside the candidate causes, with
// the judges' cause and agreement, the misleading and ignored turns and the block; the same
// chain at another block shows no judges' line. The fixture run is imported into a workspace
// of its own, so the shared one keeps no diagnosis.
func TestJudgesLineInProbesPane(t *testing.T) {
	testStore(t) // builds the fixture run
	ctx := context.Background()
	store, res, err := importRun(ctx, filepath.Join(t.TempDir(), "workspace.db"), []string{filepath.Join(fixture.dir, "run")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	rows, err := store.Chains(ctx, runs.ChainFilter{RunID: res[0].RunID})
	if err != nil {
		t.Fatal(err)
	}
	var row *runs.ChainRow
	for i := range rows {
		if rows[i].FirstFalseAuthorityBlock != nil && *rows[i].FirstFalseAuthorityBlock > 0 {
			row = &rows[i]
			break
		}
	}
	if row == nil {
		t.Fatal("the fixture run has no chain with a first false-authority block after block 0")
	}
	block := *row.FirstFalseAuthorityBlock
	h, err := store.Chain(ctx, row.Key)
	if err != nil {
		t.Fatal(err)
	}
	chainID := "chain_x"
	if len(h.EALChainIDs) > 0 {
		chainID = h.EALChainIDs[0]
	}
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	judge := func(name, cause, mis string) string {
		return fmt.Sprintf(`%s: {"cause": %s, "misleading_message_ids": [%s], "ignored_message_ids": ["t_ign"], "error_entered_here": true, "explanation": "e\u001b[31m"}`, q(name), q(cause), q(mis))
	}
	line := fmt.Sprintf(`{"run": %s, "domain": %s, "case_id": %s, "condition_id": %s, "writer": %s, "writer_run_id": %d, "chain_id": %s, "arm": null, "probe_id": "p", "request_kind": "submitted", "request": {}, "error_block": %d, "failure": "false_authorization", "loop_block": false, "attempt_statuses": ["accepted"], "judges": {%s, %s, %s}}`,
		q(row.RunID), q(h.DomainID), q(row.CaseID), q(row.ConditionID), q(row.Writer), row.WriterRunID, q(chainID), block,
		judge("a", "restatement_applied", "t_mis1"), judge("b", "restatement_applied", "t_mis2"), judge("c", "other\u001b[2J", "t_mis1"))
	path := filepath.Join(t.TempDir(), "diag.jsonl")
	if err := os.WriteFile(path, []byte(line+"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Import(ctx, []string{path}, runs.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	steps, err := store.ChainBlocks(ctx, row.Key)
	if err != nil {
		t.Fatal(err)
	}
	d := presentChainDetail(h, steps)
	s := chainScreen{c: &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 400, height: 40}, detail: &d}
	b, err := loadBlock(ctx, store, d, block)
	if err != nil {
		t.Fatal(err)
	}
	pane := stripANSI(strings.Join(s.causeLines(b, 400), "\n"))
	want := fmt.Sprintf("judges: restatement_applied (2/3 agree) · misleading t_mis1,t_mis2 · ignored t_ign · entered at block %d", block)
	if !strings.Contains(pane, "why: ") || !strings.Contains(pane, want) {
		t.Fatalf("probes pane lacks %q:\n%s", want, pane)
	}
	if strings.Contains(strings.Join(s.causeLines(b, 400), ""), "\x1b[2J") {
		t.Fatal("a judge's text reached the pane unsanitised")
	}
	other, err := loadBlock(ctx, store, d, block-1)
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Judges) != 0 || strings.Contains(strings.Join(s.causeLines(other, 400), "\n"), "judges:") {
		t.Fatalf("block %d shows the judges of block %d", block-1, block)
	}
}

func TestDiagnosesOfChain(t *testing.T) {
	rows := []runs.Diagnosis{{Domain: "procurement", ChainID: "c1", Line: 1}, {Domain: "procurement", ChainID: "c2", Line: 2}, {Domain: "finance", ChainID: "c1", Line: 3}}
	for _, tc := range []struct {
		name  string
		d     ChainDetail
		lines []int
	}{
		{"chain ids known", ChainDetail{DomainID: "procurement", EALChainIDs: []string{"c1"}}, []int{1}},
		{"chain ids unknown", ChainDetail{DomainID: "procurement"}, []int{1, 2}},
		{"other domain", ChainDetail{DomainID: "cybersecurity", EALChainIDs: []string{"c1"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			for _, r := range diagnosesOfChain(rows, tc.d) {
				got = append(got, r.Line)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.lines) {
				t.Fatalf("lines %v, want %v", got, tc.lines)
			}
		})
	}
}
