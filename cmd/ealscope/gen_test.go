package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenThenCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "gen.jsonl")
	runOK(t, "gen", "--domain", "procurement", "--cases", "12", "--seed", "9", "--out", file)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
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
	file := filepath.Join(t.TempDir(), "gen.jsonl")
	runOK(t, "gen", "--cases", "3", "--out", file)
	stdout := runOK(t, "gen", "--cases", "3")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
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
