package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/ealref"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/replay"
)

const (
	sharedDiagnosis = "results__diagnosis__v2__shared_cases.jsonl"
	cyberCorpus     = "cybersecurity_benchmark_v1__claim_identity.cases.json"
	financeCorpus   = "domains__finance__data__benchmark_v1__airport_bond_reserve.json"
)

// stripJudges writes the rows without judges, consensus_cause and agreement (CRLF, as the
// published files end their lines), so the rules see no judge's answer.
func stripJudges(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(line) == 0 {
			continue
		}
		fs, err := pyjson.ReadObject(line)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteByte('{')
		n := 0
		for _, f := range fs {
			if f.Key == "judges" || f.Key == "consensus_cause" || f.Key == "agreement" {
				continue
			}
			if n > 0 {
				out.WriteString(", ")
			}
			n++
			k, _ := json.Marshal(f.Key)
			out.Write(k)
			out.WriteString(": ")
			out.Write(f.Raw)
		}
		out.WriteString("}\r\n")
	}
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDiagnoseSharedCasesAgainstJudges: on EAL-Bench's 84 published diagnosis rows over the
// shared cases, given with every judge, consensus and agreement removed, ealscope's class is
// the judges' consensus on every row where all three agree, and on every restatement_applied
// row the misleading turn two or more judges name is ealscope's first. The rows keep every
// input field, gain one judge, and import back.
func TestDiagnoseSharedCasesAgainstJudges(t *testing.T) {
	data := ealref.Dir(t, "ealscope's judgement against EAL-Bench's judges")
	dir := t.TempDir()
	stripped, ours := filepath.Join(dir, "stripped.jsonl"), filepath.Join(dir, "ours.jsonl")
	stripJudges(t, filepath.Join(data, sharedDiagnosis), stripped)
	corpora := []string{"--corpus", filepath.Join(data, cyberCorpus), "--corpus", filepath.Join(data, financeCorpus)}
	runOK(t, append([]string{"diagnose", "--input", stripped, "--out", ours}, corpora...)...)

	// The judgement read without judges, put beside the judges' own rows, is what --compare measures.
	withJudges := filepath.Join(dir, "with-judges.jsonl")
	runOK(t, append([]string{"diagnose", "--input", filepath.Join(data, sharedDiagnosis), "--out", withJudges}, corpora...)...)
	a, b := judgementsOf(t, ours), judgementsOf(t, withJudges)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the judgement depends on the judges being present")
	}
	cmp, err := replay.CompareRows(withJudges)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("class agrees %d/%d, unanimous %d/%d; restatement rows %d (agreed turn %d): rank 1 %d, top 3 %d",
		cmp.Agree, cmp.Rows, cmp.AgreeUnanimous, cmp.Unanimous, cmp.RestatementRows, cmp.WithAgreedTurn, cmp.HitAt1, cmp.HitAt3)
	if cmp.Rows != 84 || cmp.Unanimous == 0 || cmp.AgreeUnanimous != cmp.Unanimous {
		t.Errorf("class on unanimous rows: %d/%d of %d rows (misses %+v)", cmp.AgreeUnanimous, cmp.Unanimous, cmp.Rows, cmp.Misses)
	}
	if cmp.RestatementRows == 0 || cmp.WithAgreedTurn != cmp.RestatementRows || cmp.HitAt1 != cmp.WithAgreedTurn {
		t.Errorf("restatement rows %d, with an agreed turn %d, ealscope's rank 1 on %d", cmp.RestatementRows, cmp.WithAgreedTurn, cmp.HitAt1)
	}
	out := runOK(t, "diagnose", "--compare", withJudges)
	if !strings.Contains(out, "on unanimous rows") || !strings.Contains(out, "confusion") {
		t.Errorf("--compare output:\n%s", out)
	}
	assertFieldsKept(t, filepath.Join(data, sharedDiagnosis), withJudges)
	db := filepath.Join(dir, "ws.db")
	runOK(t, "import", "--db", db, withJudges)
}

// judgementsOf reads ealscope's entry of every row.
func judgementsOf(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !bytes.HasSuffix(line, []byte("\r")) {
			t.Fatalf("%s: a CRLF input must give CRLF rows", path)
		}
		var row struct {
			Judges map[string]json.RawMessage `json:"judges"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			t.Fatal(err)
		}
		out = append(out, row.Judges[replay.RulesJudge])
	}
	return out
}

// assertFieldsKept: every input field is unchanged, in order, and judges only gained ours.
func assertFieldsKept(t *testing.T, in, out string) {
	t.Helper()
	a, _ := os.ReadFile(in)
	b, _ := os.ReadFile(out)
	la, lb := bytes.Split(bytes.TrimSpace(a), []byte("\n")), bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(la) != len(lb) {
		t.Fatalf("%d rows in, %d out", len(la), len(lb))
	}
	for i := range la {
		fa, err1 := pyjson.ReadObject(bytes.TrimSpace(la[i]))
		fb, err2 := pyjson.ReadObject(bytes.TrimSpace(lb[i]))
		if err1 != nil || err2 != nil || len(fa) != len(fb) {
			t.Fatalf("row %d: %v %v (%d vs %d fields)", i+1, err1, err2, len(fa), len(fb))
		}
		for j := range fa {
			if fa[j].Key != fb[j].Key {
				t.Fatalf("row %d: field %d is %s, was %s", i+1, j, fb[j].Key, fa[j].Key)
			}
			if fa[j].Key == "judges" {
				var ja, jb map[string]json.RawMessage
				_ = json.Unmarshal(fa[j].Raw, &ja)
				_ = json.Unmarshal(fb[j].Raw, &jb)
				delete(jb, replay.RulesJudge)
				if !reflect.DeepEqual(ja, jb) {
					t.Errorf("row %d: the judges changed", i+1)
				}
				continue
			}
			if !bytes.Equal(fa[j].Raw, fb[j].Raw) {
				t.Errorf("row %d: field %s changed", i+1, fa[j].Key)
			}
		}
	}
}

// TestDiagnoseMissingCaseNamesLine: a row whose case is in no corpus given is an error naming
// the file, the line and the field, and nothing is written.
func TestDiagnoseMissingCaseNamesLine(t *testing.T) {
	data := ealref.Dir(t, "diagnose's error on a case missing from the corpora")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	_, stderr, code := runCLI(t, "diagnose", "--input", filepath.Join(data, sharedDiagnosis), "--corpus", filepath.Join(data, financeCorpus), "--out", out)
	if code == 0 || !strings.Contains(stderr, sharedDiagnosis+":1: field case_id:") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed diagnose wrote %s", out)
	}
}
