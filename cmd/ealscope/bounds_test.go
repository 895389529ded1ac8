package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// builtinMemoryText is the built-in procurement corpus's first case and a typed memory of
// its final ledger, as JSON text.
func builtinMemoryText(t *testing.T) (string, []byte) {
	t.Helper()
	d, cases, err := domains.BuiltinCases("procurement")
	if err != nil {
		t.Fatal(err)
	}
	c := cases[0]
	ledger, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	b, err := pyjson.DumpPy(d.TypedPayload(ledger), pyjson.Indented)
	if err != nil {
		t.Fatal(err)
	}
	return c.ID, b
}

// TestNumbersAndTextAreNeverChangedSilently: gate --memory refuses an integer past int64
// quoting what the file says (it used to print 9223372036854775807), and one of a million
// digits with the digit bound, both at file:line: field; invalid UTF-8 in --memory, --state
// and --batch files is refused as in every other reader, not turned into U+FFFD.
func TestNumbersAndTextAreNeverChangedSilently(t *testing.T) {
	caseID, text := builtinMemoryText(t)
	amount := regexp.MustCompile(`"max_amount": [0-9]+`)
	if !amount.Match(text) {
		t.Fatalf("no max_amount in the memory:\n%s", text)
	}
	dir := t.TempDir()
	gate := func(name string, body []byte) (string, int) {
		path := writeFile(t, filepath.Join(dir, name), body)
		_, errs, code := runCLI(t, "gate", "--builtin", "--domain", "procurement", "--case", caseID, "--memory", path, "--json")
		return errs, code
	}
	huge := "1" + strings.Repeat("0", 400)
	errs, code := gate("huge.json", amount.ReplaceAll(text, []byte(`"max_amount": `+huge)))
	if code != 1 || !strings.Contains(errs, "huge.json:") || !strings.Contains(errs, "max_amount: integer 10000000000000000000… (401 characters) is outside the range ealscope represents") ||
		strings.Contains(errs, "9223372036854775807 ") {
		t.Errorf("10^400: exit %d: %s", code, errs)
	}
	errs, code = gate("neg.json", amount.ReplaceAll(text, []byte(`"max_amount": -18446744073709551616`)))
	if code != 1 || !strings.Contains(errs, "integer -18446744073709551616 is outside the range") {
		t.Errorf("-2^64: exit %d: %s", code, errs)
	}
	errs, code = gate("million.json", amount.ReplaceAll(text, []byte(`"max_amount": `+strings.Repeat("7", 1_000_000))))
	if code != 1 || !regexp.MustCompile(`million\.json:\d+: field authorizations\[\d+\]\.scope\.max_amount: integer literal of 1,000,000 digits is longer than the limit of 4300 digits`).MatchString(errs) {
		t.Errorf("a million digits: exit %d: %.300s", code, errs)
	}
	bad := bytes.Replace(text, []byte(`"authorizations"`), []byte("\"authorizations\", \"note\": \"\xff\""), 1)
	errs, code = gate("utf8.json", bad)
	if code != 1 || !strings.Contains(errs, "utf8.json:") || !strings.Contains(errs, "invalid UTF-8 (byte 0xff") {
		t.Errorf("invalid UTF-8 memory: exit %d: %s", code, errs)
	}
	state := writeFile(t, filepath.Join(dir, "state.json"), bad)
	_, errs, code = runCLI(t, "annotate", "set", "--db", filepath.Join(dir, "ws.db"), "--memory", "m", "--annotator", "a", "--state", state)
	if code != 1 || !strings.Contains(errs, "state.json:") || !strings.Contains(errs, "invalid UTF-8") {
		t.Errorf("invalid UTF-8 state: exit %d: %s", code, errs)
	}
	batch := writeFile(t, filepath.Join(dir, "batch.json"), []byte("{\"block_index\": 1, \"x\": \"\xfe\"}"))
	_, errs, code = runCLI(t, "reduce", "--domain", "procurement", "--batch", batch)
	if code != 1 || !strings.Contains(errs, "batch.json:1: invalid UTF-8 (byte 0xfe") {
		t.Errorf("invalid UTF-8 batch: exit %d: %s", code, errs)
	}
}

// TestOneLineLimitForCorpora: a corpus line one byte past the line limit is refused by
// check and run --corpus with the message import gives.
func TestOneLineLimitForCorpora(t *testing.T) {
	d, _ := domains.Get("procurement")
	_, data := d.BuiltinCorpus()
	first, _, _ := bytes.Cut(data, []byte("\n"))
	pad := 16<<20 + 1 - len(first)
	long := append(bytes.TrimSuffix(first, []byte("}")), []byte(`, "pad": "`+strings.Repeat("p", pad-len(`, "pad": ""`))+`"}`)...)
	if len(long) != 16<<20+1 {
		t.Fatalf("line of %d bytes", len(long))
	}
	corpus := writeFile(t, filepath.Join(t.TempDir(), "long.jsonl"), append(append(append([]byte{}, data...), long...), '\n'))
	line := 1 + bytes.Count(data, []byte("\n"))
	want := "long.jsonl:" + itoa(line) + ": line longer than the limit of 16777216 bytes"
	out, errs, code := runCLI(t, "check", corpus)
	if code == 0 || !strings.Contains(out+errs, want) {
		t.Errorf("check: exit %d: %.300s %.300s", code, out, errs)
	}
	_, errs, code = runCLI(t, "run", "--corpus", corpus, "--out", filepath.Join(t.TempDir(), "run"))
	if code == 0 || !strings.Contains(errs, want) {
		t.Errorf("run --corpus: exit %d: %.300s", code, errs)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestStateFromStdinIsBounded: annotate set --state - reads stdin within the file limit
// (here a small one): an endless stream ends in the limit's error after limit+1 bytes.
func TestStateFromStdinIsBounded(t *testing.T) {
	endless := &countingZeros{}
	_, err := readStateInput("-", endless, 1<<20)
	if err == nil || err.Error() != "stdin: input larger than the limit of 1048576 bytes" {
		t.Fatalf("endless stdin: %v", err)
	}
	if endless.n > 1<<20+64<<10 {
		t.Errorf("read %d bytes of stdin for a limit of 1 MiB", endless.n)
	}
	if _, err := readStateInput("-", strings.NewReader(`{"schema_version": "3", "authorizations": []}`), 1<<20); err != nil {
		t.Errorf("a small state on stdin: %v", err)
	}
}

// countingZeros is an endless stream of spaces that counts what was read.
type countingZeros struct{ n int }

func (z *countingZeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	z.n += len(p)
	return len(p), nil
}

// TestLineBreaksInFieldsCannotForgeLines: a case id holding a newline (or U+2028) cannot
// start a line of its own in check's output; table cells keep one row per record.
func TestLineBreaksInFieldsCannotForgeLines(t *testing.T) {
	d, _ := domains.Get("procurement")
	_, data := d.BuiltinCorpus()
	first, _, _ := bytes.Cut(data, []byte("\n"))
	var c map[string]any
	if err := json.Unmarshal(first, &c); err != nil {
		t.Fatal(err)
	}
	c["case_id"] = "x\nFORGED ok  all cases valid\u2028FORGED2"
	line, _ := json.Marshal(c)
	corpus := writeFile(t, filepath.Join(t.TempDir(), "forged.jsonl"), append(line, '\n'))
	out, errs, _ := runCLI(t, "check", corpus)
	for _, l := range strings.Split(out+errs, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "FORGED") {
			t.Errorf("a forged line reached the output: %q\n%s", l, out)
		}
	}
	if got := cells("a\nb", 3, "c\u2029d"); got[0] != "a b" || got[1] != 3 || got[2] != "c d" {
		t.Errorf("cells: %q", got)
	}
}

// TestDamagedWorkspaceIsNotWritten: a workspace with a page overwritten is refused when
// opened for writing (SQLite's quick_check), naming the file, and the import adds nothing.
func TestDamagedWorkspaceIsNotWritten(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	runBuiltinCase(t, run)
	db := filepath.Join(dir, "ws.db")
	importRun(t, db, run)
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	if len(data) < 8*page {
		t.Fatalf("workspace of %d bytes", len(data))
	}
	// Garble an interior page of a table or index (not the schema's first page).
	at := (len(data)/page - 2) * page
	for i := at + 8; i < at+page; i++ {
		data[i] = byte(i * 7)
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run2 := filepath.Join(dir, "run2")
	runBuiltinCase(t, run2, "--seed", "5")
	_, errs, code := runCLI(t, "import", "--db", db, run2)
	if code == 0 || !strings.Contains(errs, db) || !strings.Contains(errs, "the workspace is damaged (SQLite quick_check") {
		t.Fatalf("import into a damaged workspace: exit %d: %s", code, errs)
	}
}

// TestUnsetKeyVariableIsWarned: a model entry whose api_key_env names an unset variable is
// warned about before any call, naming the key and the variable.
func TestUnsetKeyVariableIsWarned(t *testing.T) {
	srv := newChatServer(t)
	srv.set("act")
	dir := t.TempDir()
	cfg := fakeModelConfig(t, srv, dir, 2)
	t.Setenv("EALSCOPE_REPLAY_TEST_KEY", "")
	_, errs, code := runCLI(t, "run", "--builtin", "--cases", fieldSurveyKit, "--conditions", "faithful_typed", "--executor", "fake", "--config", cfg,
		"--max-attempts", "1", "--out", filepath.Join(dir, "run"))
	if code != 0 || !strings.Contains(errs, "warning: models.fake.api_key_env names EALSCOPE_REPLAY_TEST_KEY, which is not set") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
