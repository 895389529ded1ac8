package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// RulesJudge is the name ealscope's rule-based judge writes under in a diagnosis row's
// judges (docs/CAUSES.md). Its vote is never counted in EAL-Bench's consensus or agreement.
const RulesJudge = "ealscope_rules_v1"

// IsEalscopeJudge tells ealscope's own judges from EAL-Bench's by name.
func IsEalscopeJudge(name string) bool { return strings.HasPrefix(name, "ealscope") }

// CaseIndex finds a case of the corpora given by domain and case id.
type CaseIndex struct {
	cases map[string]indexedCase
	files []string
}

type indexedCase struct {
	domain engine.Domain
	c      *engine.Case
	cache  *cause.Cache
}

// LoadCaseIndex reads corpus files (any domain's form; the domain is told from the content).
func LoadCaseIndex(paths []string) (*CaseIndex, error) {
	idx := &CaseIndex{cases: map[string]indexedCase{}}
	for _, p := range paths {
		f, _, err := rundir.OpenRegular(p, rundir.MaxArtifactBytes)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		d, err := domains.Detect(p, data)
		if err != nil {
			return nil, err
		}
		cases, err := d.ParseCorpus(p, data)
		if err != nil {
			return nil, err
		}
		for _, c := range cases {
			idx.cases[d.ID()+"\x00"+c.ID] = indexedCase{domain: d, c: c, cache: cause.NewCache(c)}
		}
		idx.files = append(idx.files, p)
	}
	return idx, nil
}

// Add puts one case in the index (built-in corpora, tests).
func (x *CaseIndex) Add(d engine.Domain, c *engine.Case) {
	if x.cases == nil {
		x.cases = map[string]indexedCase{}
	}
	x.cases[d.ID()+"\x00"+c.ID] = indexedCase{domain: d, c: c, cache: cause.NewCache(c)}
}

// Lookup finds a case.
func (x *CaseIndex) Lookup(domain, caseID string) (engine.Domain, *engine.Case, bool) {
	ic, ok := x.cases[domain+"\x00"+caseID]
	return ic.domain, ic.c, ok
}

// field is one key of a row object with its raw value, in file order.
type field = pyjson.Field

// rowField is the field key with the raw value v.
func rowField(key string, v json.RawMessage) field { return field{Key: key, Raw: v} }

func getField(fs []field, key string) (json.RawMessage, bool) {
	for _, f := range fs {
		if f.Key == key {
			return f.Raw, true
		}
	}
	return nil, false
}

// writeObject writes fields back in order with Python's ", " and ": " separators (the row
// style of EAL-Bench's files); values are copied as they were read.
func writeObject(fs []field) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteString(", ")
		}
		k, _ := pyjson.DumpPy(f.Key, pyjson.RowASCII)
		b.Write(k)
		b.WriteString(": ")
		b.Write(f.Raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// JudgeEntry is a judgement in EAL-Bench's judge shape, keys in its order.
type JudgeEntry struct {
	Cause                string
	MisleadingMessageIDs []string
	IgnoredMessageIDs    []string
	ErrorEnteredHere     bool
	Explanation          string
}

// EntryOf is ealscope's attribution as a judge entry.
func EntryOf(a cause.Attribution) JudgeEntry {
	return JudgeEntry{Cause: a.Class, MisleadingMessageIDs: nonNil(a.Misleading), IgnoredMessageIDs: nonNil(a.IgnoredTurns),
		ErrorEnteredHere: a.EnteredHere, Explanation: a.Explanation}
}

// raw writes the entry as EAL-Bench's judges write theirs.
func (e JudgeEntry) raw() json.RawMessage {
	fs := []field{
		rowField("cause", mustDump(e.Cause)),
		rowField("misleading_message_ids", mustDump(stringTrees(e.MisleadingMessageIDs))),
		rowField("ignored_message_ids", mustDump(stringTrees(e.IgnoredMessageIDs))),
		rowField("error_entered_here", mustDump(e.ErrorEnteredHere)),
		rowField("explanation", mustDump(e.Explanation)),
	}
	return writeObject(fs)
}

func mustDump(v any) json.RawMessage {
	b, err := pyjson.DumpPy(v, pyjson.RowASCII)
	if err != nil {
		panic(fmt.Sprintf("diagnosis row value: %v", err))
	}
	return b
}

// addJudge returns the row with one more judge under name: the judges object keeps its
// entries as they were and gains this one last; a row without judges gets a judges object
// where EAL-Bench writes it (before consensus_cause, else at the end). No other field changes.
func addJudge(fs []field, name string, entry json.RawMessage) ([]field, error) {
	k, _ := pyjson.DumpPy(name, pyjson.RowASCII)
	item := append(append(append([]byte{}, k...), ": "...), entry...)
	out := append([]field(nil), fs...)
	for i, f := range out {
		if f.Key != "judges" {
			continue
		}
		body := bytes.TrimSpace(f.Raw)
		if string(body) == "null" {
			body = []byte("{}")
		}
		if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
			return nil, fmt.Errorf("field judges: expected an object")
		}
		inner := bytes.TrimSpace(body[1 : len(body)-1])
		var nb bytes.Buffer
		nb.WriteByte('{')
		if len(inner) > 0 {
			nb.Write(body[1 : len(body)-1])
			nb.WriteString(", ")
		}
		nb.Write(item)
		nb.WriteByte('}')
		out[i].Raw = nb.Bytes()
		return out, nil
	}
	judges := rowField("judges", append(append([]byte{'{'}, item...), '}'))
	for i, f := range out {
		if f.Key == "consensus_cause" {
			return append(out[:i], append([]field{judges}, out[i:]...)...), nil
		}
	}
	return append(out, judges), nil
}

// DiagnosisRow is the part of a diagnosis row the rules read.
type DiagnosisRow struct {
	Domain, CaseID, ProbeID, RequestKind string
	Request                              map[string]any
	ErrorBlock                           int
	AttemptStatuses                      []string
}

func rowErr(file string, line int, fieldName, format string, args ...any) error {
	if fieldName == "" {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s:%d: field %s: %s", file, line, fieldName, fmt.Sprintf(format, args...))
}

// readRow reads the fields the rules need, strictly.
func readRow(file string, line int, fs []field) (DiagnosisRow, error) {
	var r DiagnosisRow
	strs := []struct {
		k string
		p *string
	}{{"domain", &r.Domain}, {"case_id", &r.CaseID}, {"probe_id", &r.ProbeID}, {"request_kind", &r.RequestKind}}
	for _, s := range strs {
		raw, ok := getField(fs, s.k)
		if !ok {
			return r, rowErr(file, line, s.k, "missing")
		}
		if err := json.Unmarshal(raw, s.p); err != nil || *s.p == "" {
			return r, rowErr(file, line, s.k, "expected a non-empty string")
		}
	}
	raw, ok := getField(fs, "error_block")
	if !ok {
		return r, rowErr(file, line, "error_block", "missing")
	}
	if err := json.Unmarshal(raw, &r.ErrorBlock); err != nil || r.ErrorBlock < 0 {
		return r, rowErr(file, line, "error_block", "expected a block index (an integer >= 0)")
	}
	raw, ok = getField(fs, "request")
	if !ok {
		return r, rowErr(file, line, "request", "missing")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r.Request); err != nil || r.Request == nil {
		return r, rowErr(file, line, "request", "expected an object")
	}
	if raw, ok = getField(fs, "attempt_statuses"); ok {
		if err := json.Unmarshal(raw, &r.AttemptStatuses); err != nil {
			return r, rowErr(file, line, "attempt_statuses", "expected a list of strings")
		}
	}
	return r, nil
}

// AttributeRow runs the rules on one row: the case from the index, the probe's request for
// relevance, the row's request fields, its error block and attempt statuses (no memory).
func AttributeRow(idx *CaseIndex, file string, line int, r DiagnosisRow) (cause.Attribution, error) {
	ic, ok := idx.cases[r.Domain+"\x00"+r.CaseID]
	d, c := ic.domain, ic.c
	if !ok {
		return cause.Attribution{}, rowErr(file, line, "case_id", "case %s (domain %s) is in none of the corpora given (--corpus)", r.CaseID, r.Domain)
	}
	p, ok := c.Probe(r.ProbeID)
	if !ok {
		return cause.Attribution{}, rowErr(file, line, "probe_id", "case %s has no probe %s", r.CaseID, r.ProbeID)
	}
	if r.ErrorBlock > c.LastBlock() {
		return cause.Attribution{}, rowErr(file, line, "error_block", "%d is past case %s's last block %d", r.ErrorBlock, r.CaseID, c.LastBlock())
	}
	kind := "submitted"
	if r.RequestKind == "alternative" {
		kind = "alternative"
	}
	a, err := cause.Attribute(cause.Input{Domain: d, Case: c, Block: r.ErrorBlock, Request: p.Request, RequestFields: r.Request,
		Probe: p.ID, RequestKind: kind, Attempts: r.AttemptStatuses, Cache: ic.cache})
	if err != nil {
		return a, rowErr(file, line, "", "%v", err)
	}
	return a, nil
}

// DiagnoseRows reads EAL-Bench diagnosis rows (CRLF or LF) and writes each back with
// ealscope's judgement added under RulesJudge, every other field unchanged, in the input's
// line ending. A row that cannot be read stops the run before anything is written for it.
func DiagnoseRows(idx *CaseIndex, path string, w io.Writer) (int, error) {
	f, _, err := rundir.OpenRegular(path, rundir.MaxArtifactBytes)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	var out bytes.Buffer
	n := 0
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		eol := ""
		switch {
		case bytes.HasSuffix(line, []byte("\r\n")):
			eol = "\r\n"
		case bytes.HasSuffix(line, []byte("\n")):
			eol = "\n"
		}
		body := bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		if err := rundir.CheckUTF8(path, i+1, body); err != nil {
			return 0, err
		}
		fs, err := pyjson.ReadObject(body)
		if err != nil {
			return 0, rowErr(path, i+1, "", "invalid JSON: %v", err)
		}
		r, err := readRow(path, i+1, fs)
		if err != nil {
			return 0, err
		}
		a, err := AttributeRow(idx, path, i+1, r)
		if err != nil {
			return 0, err
		}
		fs, err = addJudge(fs, RulesJudge, EntryOf(a).raw())
		if err != nil {
			return 0, rowErr(path, i+1, "judges", "%v", err)
		}
		out.Write(writeObject(fs))
		if eol == "" {
			eol = "\n"
		}
		out.WriteString(eol)
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: no diagnosis rows", path)
	}
	_, err = w.Write(out.Bytes())
	return n, err
}

// WriteFileAtomic writes data to path through a temporary file, so a failed write leaves
// nothing half-written.
func WriteFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// RunRow is one diagnosis row ealscope writes for a failure of a workspace run, in
// EAL-Bench's row shape (docs/FORMATS.md).
type RunRow struct {
	Run, Domain, CaseID, ConditionID, Writer string
	WriterRunID                              int64
	ChainID, ProbeID, RequestKind            string
	Request                                  map[string]any
	ErrorBlock                               int
	AttemptStatuses                          []string
	// Judges are written in name order, ealscope's own after the models'.
	Judges    map[string]JudgeEntry
	Consensus *string
	Agreement *int
}

// Line is the row as EAL-Bench writes it (CRLF line end, as its published files have).
func (r RunRow) Line() []byte {
	var names, ours []string
	for n := range r.Judges {
		if IsEalscopeJudge(n) {
			ours = append(ours, n)
		} else {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	sort.Strings(ours)
	judges := []field{}
	for _, n := range append(names, ours...) {
		judges = append(judges, rowField(n, r.Judges[n].raw()))
	}
	var consensus, agreement any
	if r.Consensus != nil {
		consensus = *r.Consensus
	}
	if r.Agreement != nil {
		agreement = *r.Agreement
	}
	fs := []field{
		rowField("run", mustDump(r.Run)), rowField("domain", mustDump(r.Domain)), rowField("case_id", mustDump(r.CaseID)),
		rowField("condition_id", mustDump(r.ConditionID)), rowField("writer", mustDump(r.Writer)), rowField("writer_run_id", mustDump(r.WriterRunID)),
		rowField("chain_id", mustDump(r.ChainID)), rowField("arm", json.RawMessage("null")), rowField("probe_id", mustDump(r.ProbeID)),
		rowField("request_kind", mustDump(r.RequestKind)), rowField("request", mustDump(r.Request)), rowField("error_block", mustDump(r.ErrorBlock)),
		rowField("failure", mustDump("false_authorization")), rowField("loop_block", mustDump(false)),
		rowField("attempt_statuses", mustDump(stringTrees(r.AttemptStatuses))), rowField("judges", writeObject(judges)),
		rowField("consensus_cause", mustDump(consensus)), rowField("agreement", mustDump(agreement)),
	}
	return append(writeObject(fs), '\r', '\n')
}
