package runs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/ealref"
)

const diagnosisFileName = "results__diagnosis__v2__mandate-open__mandate-procurement-kimi_baseten.jsonl"

func realDiagnosisFile(t *testing.T) string {
	t.Helper()
	return filepath.Join(ealref.Dir(t, "importing EAL-Bench's real diagnosis file"), diagnosisFileName)
}

func diagnosisCount(t *testing.T, s *Store) int {
	t.Helper()
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM diagnoses`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestImportRealDiagnosisFile(t *testing.T) {
	path := realDiagnosisFile(t)
	ctx := context.Background()
	s, _ := openStore(t)
	if kind, err := classify(path); err != nil || kind != KindDiagnosis {
		t.Fatalf("classify = %q, %v; want %q", kind, err, KindDiagnosis)
	}
	if res := importOne(t, s, path); res.Kind != KindDiagnosis || res.Status != StatusImported || res.Rows["diagnoses"] != 14 {
		t.Fatalf("result: %+v", res)
	}
	if n := diagnosisCount(t, s); n != 14 {
		t.Fatalf("stored %d diagnoses, want 14", n)
	}
	ds, err := s.Diagnoses(ctx, "procurement_v1_freight_vendor_change", "incremental_typed__mandate", 0, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 2 {
		t.Fatalf("freight chain at block 5: %d diagnoses, want 2", len(ds))
	}
	d := ds[0]
	if d.Line != 1 || d.ProbeID != "procurement_v1_freight_vendor_change_amount_out" || d.ChainID != "chain_812c6fc6e7d3a773a0ad92c0" || d.Arm != nil {
		t.Fatalf("row 1: %+v", d)
	}
	if len(d.Judges) != 3 || d.Judges[0].Judge != "deepseek_baseten" {
		t.Fatalf("judges: %+v", d.Judges)
	}
	j := d.Judges[0]
	if j.Cause != "restatement_applied" || !j.ErrorEnteredHere || len(j.MisleadingMessageIDs) != 1 ||
		j.MisleadingMessageIDs[0] != "src_edf62e19_084" || len(j.IgnoredMessageIDs) != 0 || !strings.Contains(j.Explanation, "Jon") {
		t.Fatalf("deepseek verdict: %+v", j)
	}
	if a := JudgeAgreement(d.Judges); a.String() != "judges 3/3 agree: restatement_applied" || !a.EnteredAgree || !a.EnteredHere {
		t.Fatalf("agreement: %+v", a)
	}
	if d.Agreement == nil || *d.Agreement != 3 || d.ConsensusCause == nil || *d.ConsensusCause != "restatement_applied" {
		t.Fatalf("file's own agreement: %v %v", d.Agreement, d.ConsensusCause)
	}
	// The same file again is recognised and stores nothing new.
	rep, err := s.Import(ctx, []string{path}, ImportOptions{})
	if err != nil || rep.Results[0].Status != StatusAlreadyImported || diagnosisCount(t, s) != 14 {
		t.Fatalf("re-import: %+v %v", rep, err)
	}
}

const goodDiagnosisRow = `{"run": "r1", "domain": "procurement", "case_id": "c1", "condition_id": "incremental_typed", "writer": "w", "writer_run_id": 0, "chain_id": "chain_1", "arm": null, "probe_id": "p1", "request_kind": "submitted", "request": {"amount": 1}, "error_block": 2, "failure": "false_authorization", "loop_block": false, "attempt_statuses": ["accepted"], "judges": {"a": {"cause": "restatement_applied", "misleading_message_ids": ["t1"], "ignored_message_ids": [], "error_entered_here": true, "explanation": "x"}}}`

func TestImportDiagnosisBrokenRowStoresNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, line3, want string
	}{
		{"bad JSON", `{"run": "r1", `, ":3: invalid JSON"},
		{"missing judge cause", strings.Replace(goodDiagnosisRow, `"cause": "restatement_applied", `, "", 1), ":3: field judges.a.cause: missing"},
		{"error_block a string", strings.Replace(goodDiagnosisRow, `"error_block": 2`, `"error_block": "2"`, 1), ":3: field error_block: wrong type"},
		{"error_block 2^62", strings.Replace(goodDiagnosisRow, `"error_block": 2`, `"error_block": 4611686018427387904`, 1), ":3: field error_block: must be a block index (an integer from 0 to 65536)"},
		{"writer_run_id -7", strings.Replace(goodDiagnosisRow, `"writer_run_id": 0`, `"writer_run_id": -7`, 1), ":3: field writer_run_id: must be >= 0, got -7"},
		{"duplicate key", strings.Replace(goodDiagnosisRow, `"run": "r1", `, `"run": "r1", "run": "r2", `, 1), ":3: field run: appears twice in the row"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := openStore(t)
			path := filepath.Join(t.TempDir(), "diag.jsonl")
			body := goodDiagnosisRow + "\r\n" + goodDiagnosisRow + "\r\n" + tc.line3 + "\r\n"
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.Import(ctx, []string{path}, ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), path+tc.want) {
				t.Fatalf("error %v, want it to name %s%s", err, path, tc.want)
			}
			if n := diagnosisCount(t, s); n != 0 {
				t.Fatalf("%d diagnoses stored after a failed import", n)
			}
			var files int
			s.db.QueryRow(`SELECT COUNT(*) FROM diagnosis_files`).Scan(&files)
			if files != 0 {
				t.Fatalf("%d diagnosis files stored after a failed import", files)
			}
		})
	}
	// The good rows alone (CRLF) import.
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "diag.jsonl")
	os.WriteFile(path, []byte(goodDiagnosisRow+"\r\n"+goodDiagnosisRow+"\r\n"), 0o644)
	if _, err := s.ImportDiagnosis(ctx, path); err != nil || diagnosisCount(t, s) != 2 {
		t.Fatalf("good rows: %v", err)
	}
}

func TestJudgeAgreement(t *testing.T) {
	v := func(judge, cause string, entered bool) JudgeVerdict {
		return JudgeVerdict{Judge: judge, Cause: cause, ErrorEnteredHere: entered}
	}
	for _, tc := range []struct {
		name         string
		judges       []JudgeVerdict
		want         string
		enteredAgree bool
	}{
		{"none", nil, "no judges", false},
		{"one", []JudgeVerdict{v("a", "x", true)}, "judges 1/1 agree: x", true},
		{"all agree", []JudgeVerdict{v("a", "restatement_applied", true), v("b", "restatement_applied", true)}, "judges 2/2 agree: restatement_applied", true},
		{"two of three", []JudgeVerdict{v("a", "y", true), v("b", "x", false), v("c", "x", true)}, "judges 2/3: x", false},
		{"tie broken by name", []JudgeVerdict{v("a", "z", false), v("b", "m", false)}, "judges 1/2: m", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := JudgeAgreement(tc.judges)
			if a.String() != tc.want || a.EnteredAgree != tc.enteredAgree {
				t.Fatalf("got %q entered-agree %v, want %q %v", a.String(), a.EnteredAgree, tc.want, tc.enteredAgree)
			}
		})
	}
}

// TestDiagnosisFileWithABrokenFirstRow: a diagnosis file whose first row is broken is still
// read as a diagnosis file, so the error is its reader's (line and problem), not "no domain
// reads this corpus".
func TestDiagnosisFileWithABrokenFirstRow(t *testing.T) {
	s, _ := openStore(t)
	path := filepath.Join(t.TempDir(), "diag.jsonl")
	if err := os.WriteFile(path, []byte(goodDiagnosisRow+" trailing\n"+goodDiagnosisRow+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := s.Import(context.Background(), []string{path}, ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), path+":1: invalid JSON") || strings.Contains(err.Error(), "no domain reads") {
		t.Fatalf("error %v", err)
	}
}
