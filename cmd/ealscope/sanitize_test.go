package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
)

// hostileID holds a screen clear, an OSC 52 clipboard write, a C1 control and a bidi override.
const hostileID = "ealscope_v1_x\x1b[2J\x1b]52;c;ZXZpbA==\x07\u0085\u202eevil"

// rawControls are what must never reach a terminal from untrusted text.
var rawControls = []string{"\x1b", "\x07", "\u0085", "\u202e"}

func assertNoRawControls(t *testing.T, what, out string) {
	t.Helper()
	for _, bad := range rawControls {
		if strings.Contains(out, bad) {
			t.Errorf("%s holds %q raw:\n%q", what, bad, out)
		}
	}
}

// writeHostileCorpus writes the first built-in case renamed to hostileID.
func writeHostileCorpus(t *testing.T, dir string) string {
	t.Helper()
	_, data := procurement.Domain{}.BuiltinCorpus()
	var c map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &c); err != nil {
		t.Fatal(err)
	}
	c["case_id"] = hostileID
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, filepath.Join(dir, "hostile.jsonl"), append(b, '\n'))
}

// TestCLITextIsSanitised: check, run, import and summary print a hostile case id through the
// shared sanitiser, and --json escapes its C1 and bidi characters (the value is unchanged).
func TestCLITextIsSanitised(t *testing.T) {
	dir := t.TempDir()
	corpus := writeHostileCorpus(t, dir)

	out, errOut, _ := runCLI(t, "check", corpus)
	assertNoRawControls(t, "check", out+errOut)
	if !strings.Contains(out+errOut, "<U+202E>evil") {
		t.Errorf("check does not show the placeholder:\n%s%s", out, errOut)
	}

	js, errOut, _ := runCLI(t, "check", corpus, "--json")
	assertNoRawControls(t, "check --json", js+errOut)
	if !strings.Contains(js, `\u0085\u202eevil`) {
		t.Errorf("check --json does not escape C1/bidi: %s", js)
	}
	var doc struct {
		Cases []struct {
			CaseID string `json:"case_id"`
		} `json:"cases"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Cases) != 1 || doc.Cases[0].CaseID != hostileID {
		t.Fatalf("check --json does not decode back to the id: %v %+v", err, doc)
	}

	runDir := filepath.Join(dir, "run")
	out, errOut, code := runCLI(t, "run", "--corpus", corpus, "--conditions", "faithful_typed", "--out", runDir)
	assertNoRawControls(t, "run", out+errOut)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	// An unknown file with a hostile name beside the run's files.
	writeFile(t, filepath.Join(runDir, "notes\x1b[2J\u202e.txt"), []byte("x"))
	db := filepath.Join(dir, "ws.db")
	out, errOut, code = runCLI(t, "import", "--db", db, "--corpus", corpus, runDir)
	assertNoRawControls(t, "import", out+errOut)
	if code != 0 || !strings.Contains(out, "unknown file skipped: notes␛<U+202E>.txt") {
		t.Fatalf("import: exit %d:\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "summary", "--db", db)
	assertNoRawControls(t, "summary", out+errOut)
	runID := ""
	if f := strings.Fields(out); len(f) > 1 && f[0] == "run" {
		runID = f[1]
	}
	out, errOut, code = runCLI(t, "summary", "--db", db, "--run", runID) // the cases are in the detail
	assertNoRawControls(t, "summary --run", out+errOut)
	if code != 0 || !strings.Contains(out, "ealscope_v1_x␛␛␛<U+202E>evil") {
		t.Fatalf("summary: exit %d:\n%s%s", code, out, errOut)
	}
}
