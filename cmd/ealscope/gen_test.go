package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// genFile runs `ealscope gen` with args into a file of a fresh temporary folder and returns
// the file and its bytes.
func genFile(t *testing.T, args ...string) (string, []byte) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "gen.jsonl")
	runOK(t, append(append([]string{"gen"}, args...), "--out", file)...)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, data
}

func TestGenThenCheck(t *testing.T) {
	file, data := genFile(t, "--domain", "procurement", "--cases", "12", "--seed", "9")
	if n := bytes.Count(data, []byte("\n")); n != 12 {
		t.Fatalf("want 12 lines, got %d", n)
	}
	entries, err := os.ReadDir(filepath.Dir(file))
	if err != nil || len(entries) != 1 {
		t.Errorf("temporary files left behind: %v (err %v)", entries, err)
	}

	checkAllValid(t, 12, file)
}

func TestGenStdoutMatchesFile(t *testing.T) {
	_, data := genFile(t, "--cases", "3")
	stdout := runOK(t, "gen", "--cases", "3")
	if stdout != string(data) {
		t.Error("stdout and --out differ for the same seed")
	}
	if !strings.Contains(stdout, `"case_id":"ealscope_gen_s1_00001"`) {
		t.Error("default seed is not 1")
	}
}

func TestGenRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gen"}, "--cases"},
		{[]string{"gen", "--cases", "0"}, "between 1 and 100000"},
		{[]string{"gen", "--cases", "100001"}, "between 1 and 100000"},
		{[]string{"gen", "--cases", "2", "--domain", "no_such_domain"}, `unknown domain "no_such_domain"`},
		{[]string{"gen", "--cases", "2", "--out", filepath.Join(t.TempDir(), "missing", "x.jsonl")}, "no such file"},
	} {
		_, errs, code := runCLI(t, tc.args...)
		if code == 0 {
			t.Errorf("%v: exit 0", tc.args)
		}
		if !strings.Contains(errs, tc.want) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errs, tc.want)
		}
	}
}
