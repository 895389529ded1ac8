package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/ealref"
	"github.com/ealscope/ealscope/runs"
)

// The helpers the command tests share: running the command line in-process, the runs and
// workspaces they start from, and the files they write.

// runCLI runs the command line in-process (stdout and stdin are not terminals here, which
// is exactly the non-TTY case open and demo must handle without hanging).
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// runOK runs the command line in-process, fails the test unless it exits 0 (naming the
// command line and its stderr), and returns its stdout.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	out, errb, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("ealscope %s: exit %d: %s", strings.Join(args, " "), code, errb)
	}
	return out
}

// runJSON runs the command line in-process, fails the test unless it exits 0, decodes its
// stdout into v and returns it.
func runJSON(t *testing.T, v any, args ...string) string {
	t.Helper()
	out := runOK(t, args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("ealscope %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// assertJSONKeys fails the test unless the JSON document out holds every key: decoded
// through the types that produce it, a renamed field would otherwise go unseen.
func assertJSONKeys(t *testing.T, what, out string, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if !strings.Contains(out, strconv.Quote(k)+":") {
			t.Errorf("%s lacks the key %q:\n%s", what, k, out)
		}
	}
}

// writeFile writes data to path (a test's own temporary file) and returns the path.
func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyRun copies a fixture run directory of the runs package into a temporary directory.
func copyRun(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// fieldSurveyKit is the built-in procurement case the command tests run when one case is
// enough.
const fieldSurveyKit = "ealscope_v1_field_survey_kit"

// runBuiltinCase runs `ealscope run` on the built-in fieldSurveyKit case into the run
// directory out, with extra flags, fails the test unless it exits 0, and returns its stdout.
func runBuiltinCase(t *testing.T, out string, extra ...string) string {
	t.Helper()
	return runOK(t, append([]string{"run", "--builtin", "--cases", fieldSurveyKit, "--out", out}, extra...)...)
}

// importRun imports the run directory into the workspace db and returns its run id.
func importRun(t *testing.T, db, dir string) string {
	t.Helper()
	var rep struct {
		Results []runs.PathResult `json:"results"`
	}
	runJSON(t, &rep, "import", "--db", db, dir, "--json")
	if len(rep.Results) == 0 || rep.Results[0].RunID == "" {
		t.Fatalf("import of %s reports no run: %+v", dir, rep)
	}
	return rep.Results[0].RunID
}

// setXDG points the XDG base directories named at folders under dir, for this test only:
// XDG_DATA_HOME at dir/data, XDG_CONFIG_HOME at dir/config, XDG_STATE_HOME at dir/state. The
// xdg package reads them once, so it is reloaded now and again after the test.
func setXDG(t *testing.T, dir string, vars ...string) {
	t.Helper()
	for _, v := range vars {
		t.Setenv(v, filepath.Join(dir, strings.ToLower(strings.TrimPrefix(strings.TrimSuffix(v, "_HOME"), "XDG_"))))
	}
	xdg.Reload()
	t.Cleanup(xdg.Reload)
}

// demoWorkspace runs `ealscope demo` in a fresh temporary folder (its XDG data and config
// homes there too, so no user config applies) and returns the folder, the workspace and the
// demo's stdout (the frame of the chain it opens) and stderr.
func demoWorkspace(t *testing.T) (tmp, db, out, errs string) {
	t.Helper()
	tmp = t.TempDir()
	setXDG(t, tmp, "XDG_DATA_HOME", "XDG_CONFIG_HOME")
	db = filepath.Join(tmp, "ws.db")
	out, errs, code := runCLI(t, "demo", "--db", db)
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, errs)
	}
	return tmp, db, out, errs
}

// checkAllValid runs `ealscope check --json` with args and fails the test unless it reports
// want cases, each valid, without scope mismatches and with six probes; it returns the report
// and the document.
func checkAllValid(t *testing.T, want int, args ...string) (domains.CheckReport, string) {
	t.Helper()
	var rep domains.CheckReport
	out := runJSON(t, &rep, append([]string{"check", "--json"}, args...)...)
	if len(rep.Cases) != want {
		t.Fatalf("check reports %d cases, want %d", len(rep.Cases), want)
	}
	for _, c := range rep.Cases {
		if !c.Valid || c.Error != nil || len(c.Mismatches) > 0 || len(c.Probes) != 6 {
			t.Errorf("%s: valid=%v error=%v mismatches=%v probes=%d", c.CaseID, c.Valid, c.Error, c.Mismatches, len(c.Probes))
		}
	}
	return rep, out
}

// ealDataPath is the path of one file of the EAL-Bench data folder named by
// EALSCOPE_EAL_DATA; it skips the test (saying what it skips) when the variable is unset.
func ealDataPath(t *testing.T, skipping, name string) string {
	t.Helper()
	return filepath.Join(ealref.Dir(t, skipping), name)
}

// ealDataFile reads one file of the EAL-Bench data folder (see ealDataPath).
func ealDataFile(t *testing.T, skipping, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(ealDataPath(t, skipping, name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// ealBenchCorpora are the EAL-Bench corpus files of the shared cases (the gate's and the
// reducer's), by domain, in the EAL-Bench data folder.
var ealBenchCorpora = map[string]string{
	"procurement":   "domains__procurement__data__benchmark_v1__software_license_grant.jsonl",
	"cybersecurity": "cybersecurity_benchmark_v1__claim_identity.cases.json",
	"finance":       "domains__finance__data__benchmark_v1__airport_bond_reserve.json",
}
