package runs

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/ealscope/ealscope/runs/rundir"
)

// KindDiagnosis is an EAL-Bench judge-diagnosis file (docs/FORMATS.md, results/diagnosis/v2).
const KindDiagnosis = "diagnosis"

// JudgeVerdict is one judge's reading of where a writer's memory error entered.
type JudgeVerdict struct {
	Judge                string   `json:"judge"`
	Cause                string   `json:"cause"`
	MisleadingMessageIDs []string `json:"misleading_message_ids"`
	IgnoredMessageIDs    []string `json:"ignored_message_ids"`
	ErrorEnteredHere     bool     `json:"error_entered_here"`
	Explanation          string   `json:"explanation"`
}

// Diagnosis is one row of a diagnosis file: a writer memory error under one request, with
// the judges' verdicts (sorted by judge name).
type Diagnosis struct {
	Line            int            `json:"line"`
	RunID           string         `json:"run"`
	Domain          string         `json:"domain"`
	CaseID          string         `json:"case_id"`
	ConditionID     string         `json:"condition_id"`
	Writer          string         `json:"writer"`
	WriterRunID     int64          `json:"writer_run_id"`
	ChainID         string         `json:"chain_id"`
	Arm             *string        `json:"arm"`
	ProbeID         string         `json:"probe_id"`
	RequestKind     string         `json:"request_kind"`
	Request         string         `json:"request"`
	ErrorBlock      int            `json:"error_block"`
	Failure         string         `json:"failure"`
	LoopBlock       bool           `json:"loop_block"`
	AttemptStatuses []string       `json:"attempt_statuses"`
	Judges          []JudgeVerdict `json:"judges"`
	// ConsensusCause and Agreement are what the file says (absent in some files); ealscope's
	// own count is JudgeAgreement.
	ConsensusCause *string `json:"consensus_cause"`
	Agreement      *int    `json:"agreement"`
}

// IsDiagnosisFile tells whether a .jsonl file is a diagnosis file: its first row is an
// object with "judges" and "error_block" (a corpus row has neither).
func IsDiagnosisFile(path string) bool {
	f, _, err := rundir.OpenRegular(path, rundir.MaxArtifactBytes)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _, ok, err := rundir.NewLineReader(f, path).Next()
	if err != nil || !ok {
		return false
	}
	var head map[string]json.RawMessage
	if json.Unmarshal(line, &head) != nil {
		// A broken first row that still names both keys is a broken diagnosis file: its own
		// reader says what is wrong, not "no domain reads this corpus".
		return bytes.Contains(line, []byte(`"judges"`)) && bytes.Contains(line, []byte(`"error_block"`))
	}
	_, j := head["judges"]
	_, e := head["error_block"]
	return j && e
}

// diagErr names the file, line and field of a bad diagnosis row.
func diagErr(file string, line int, field, format string, args ...any) error {
	if field != "" {
		return fmt.Errorf("%s:%d: field %s: %s", file, line, field, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...))
}

// parseDiagnosis reads one row strictly: every field docs/FORMATS.md lists must be present with its
// type; consensus_cause and agreement may be absent. Other keys are ignored.
func parseDiagnosis(file string, lineNo int, line []byte) (Diagnosis, error) {
	d := Diagnosis{Line: lineNo}
	var row map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&row); err != nil || row == nil {
		if err == nil {
			err = fmt.Errorf("not an object")
		}
		return d, diagErr(file, lineNo, "", "invalid JSON: %v", err)
	}
	if dec.More() {
		return d, diagErr(file, lineNo, "", "invalid JSON: trailing data after the row")
	}
	if dup := firstDuplicateKey(line); dup != "" {
		return d, diagErr(file, lineNo, dup, "appears twice in the row (which one counts would be a guess)")
	}
	get := func(field string, dst any, optional bool) error {
		raw, ok := row[field]
		if !ok {
			if optional {
				return nil
			}
			return diagErr(file, lineNo, field, "missing")
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return diagErr(file, lineNo, field, "wrong type: %v", err)
		}
		return nil
	}
	strs := []struct {
		f string
		p *string
	}{{"run", &d.RunID}, {"domain", &d.Domain}, {"case_id", &d.CaseID}, {"condition_id", &d.ConditionID},
		{"writer", &d.Writer}, {"chain_id", &d.ChainID}, {"probe_id", &d.ProbeID}, {"request_kind", &d.RequestKind},
		{"failure", &d.Failure}}
	for _, s := range strs {
		var v *string
		if err := get(s.f, &v, false); err != nil {
			return d, err
		}
		if v == nil || *v == "" {
			return d, diagErr(file, lineNo, s.f, "empty")
		}
		*s.p = *v
	}
	var wr *int64
	if err := get("writer_run_id", &wr, false); err != nil {
		return d, err
	}
	if wr == nil {
		return d, diagErr(file, lineNo, "writer_run_id", "null")
	}
	if *wr < 0 {
		return d, diagErr(file, lineNo, "writer_run_id", "must be >= 0, got %d", *wr)
	}
	d.WriterRunID = *wr
	var eb *int
	if err := get("error_block", &eb, false); err != nil {
		return d, err
	}
	if eb == nil || *eb < 0 || *eb > rundir.MaxBlockIndex {
		return d, diagErr(file, lineNo, "error_block", "must be a block index (an integer from 0 to %d)", rundir.MaxBlockIndex)
	}
	d.ErrorBlock = *eb
	if err := get("arm", &d.Arm, false); err != nil {
		return d, err
	}
	var req map[string]any
	if err := get("request", &req, false); err != nil {
		return d, err
	}
	if req == nil {
		return d, diagErr(file, lineNo, "request", "must be an object")
	}
	d.Request = string(row["request"])
	if err := get("loop_block", &d.LoopBlock, false); err != nil {
		return d, err
	}
	if err := get("attempt_statuses", &d.AttemptStatuses, false); err != nil {
		return d, err
	}
	if d.AttemptStatuses == nil {
		d.AttemptStatuses = []string{}
	}
	if err := get("consensus_cause", &d.ConsensusCause, true); err != nil {
		return d, err
	}
	if err := get("agreement", &d.Agreement, true); err != nil {
		return d, err
	}
	var judges map[string]json.RawMessage
	if err := get("judges", &judges, false); err != nil {
		return d, err
	}
	if len(judges) == 0 {
		return d, diagErr(file, lineNo, "judges", "no judges")
	}
	var err error
	d.Judges, err = parseJudges(file, lineNo, judges)
	return d, err
}

// parseJudges reads a row's judges strictly (every field present), sorted by judge name.
func parseJudges(file string, lineNo int, judges map[string]json.RawMessage) ([]JudgeVerdict, error) {
	var out []JudgeVerdict
	for name, raw := range judges {
		field := "judges." + name
		var v struct {
			Cause      *string   `json:"cause"`
			Misleading *[]string `json:"misleading_message_ids"`
			Ignored    *[]string `json:"ignored_message_ids"`
			Entered    *bool     `json:"error_entered_here"`
			Explain    *string   `json:"explanation"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, diagErr(file, lineNo, field, "wrong type: %v", err)
		}
		switch {
		case v.Cause == nil || *v.Cause == "":
			return nil, diagErr(file, lineNo, field+".cause", "missing")
		case v.Misleading == nil:
			return nil, diagErr(file, lineNo, field+".misleading_message_ids", "missing")
		case v.Ignored == nil:
			return nil, diagErr(file, lineNo, field+".ignored_message_ids", "missing")
		case v.Entered == nil:
			return nil, diagErr(file, lineNo, field+".error_entered_here", "missing")
		case v.Explain == nil:
			return nil, diagErr(file, lineNo, field+".explanation", "missing")
		}
		out = append(out, JudgeVerdict{Judge: name, Cause: *v.Cause, MisleadingMessageIDs: *v.Misleading,
			IgnoredMessageIDs: *v.Ignored, ErrorEnteredHere: *v.Entered, Explanation: *v.Explain})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Judge < out[j].Judge })
	return out, nil
}

// ReadDiagnoses parses a diagnosis file (one JSON object a line) and returns its rows in file
// order with the file's sha256. It touches no workspace: every backend imports the same rows.
func ReadDiagnoses(path string) ([]Diagnosis, string, error) {
	f, _, err := rundir.OpenRegular(path, rundir.MaxArtifactBytes)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	lr := rundir.NewLineReader(f, path)
	var rows []Diagnosis
	for {
		line, n, ok, err := lr.Next()
		if err != nil {
			return nil, "", err
		}
		if !ok {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := rundir.CheckUTF8(path, n, line); err != nil {
			return nil, "", err
		}
		d, err := parseDiagnosis(path, n, line)
		if err != nil {
			return nil, "", err
		}
		rows = append(rows, d)
	}
	if len(rows) == 0 {
		return nil, "", fmt.Errorf("%s: no diagnosis rows", path)
	}
	return rows, lr.SHA256(), nil
}

// ImportDiagnosis imports one diagnosis file: every row is parsed strictly and the whole file
// is written in one transaction, so a bad row (named by file, line and field) stores nothing.
// A file imported before (same sha256) is reported already imported.
func (s *Store) ImportDiagnosis(ctx context.Context, path string) (PathResult, error) {
	res := emptyResult(path, KindDiagnosis)
	rows, sum, err := ReadDiagnoses(path)
	if err != nil {
		return res, err
	}
	var seen int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM diagnosis_files WHERE sha256 = ?`, sum).Scan(&seen); err != nil {
		return res, err
	}
	if seen > 0 {
		res.Status = StatusAlreadyImported
		return res, nil
	}
	written, err := s.inTx(ctx, func(w *txWriter) error {
		filePK, err := w.insertID("diagnosis_files", `INSERT INTO diagnosis_files (path, sha256, rows, imported_at) VALUES (?, ?, ?, ?)`,
			path, sum, len(rows), time.Now().UTC().Format(time.RFC3339))
		if err != nil {
			return err
		}
		for _, d := range rows {
			judges := map[string]JudgeVerdict{}
			for _, j := range d.Judges {
				judges[j.Judge] = j
			}
			jj, err := json.Marshal(judges)
			if err != nil {
				return err
			}
			st, err := json.Marshal(d.AttemptStatuses)
			if err != nil {
				return err
			}
			if _, err := w.exec("diagnoses", `INSERT INTO diagnoses (file_pk, line, run_id, domain, case_id, condition_id,
				writer, writer_run_id, chain_id, arm, probe_id, request_kind, request_json, error_block, failure, loop_block,
				attempt_statuses_json, judges_json, consensus_cause, agreement) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
				filePK, d.Line, d.RunID, d.Domain, d.CaseID, d.ConditionID, d.Writer, d.WriterRunID, d.ChainID, d.Arm,
				d.ProbeID, d.RequestKind, d.Request, d.ErrorBlock, d.Failure, d.LoopBlock, string(st), string(jj),
				d.ConsensusCause, d.Agreement); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res.imported(written), nil
}

// Diagnoses are the imported diagnoses of one writer chain (case, condition, writer run) at
// one block, in file order.
func (s *Store) Diagnoses(ctx context.Context, caseID, conditionID string, writerRunID int64, block int) ([]Diagnosis, error) {
	return queryAll(ctx, s.db, scanDiagnosis, `SELECT line, run_id, domain, case_id, condition_id, writer, writer_run_id, chain_id,
		arm, probe_id, request_kind, request_json, error_block, failure, loop_block, attempt_statuses_json, judges_json,
		consensus_cause, agreement FROM diagnoses WHERE case_id = ? AND condition_id = ? AND writer_run_id = ? AND error_block = ?
		ORDER BY file_pk, line`, caseID, conditionID, writerRunID, block)
}

// scanDiagnosis reads one diagnoses row, its judges in name order.
func scanDiagnosis(q rowScanner) (Diagnosis, error) {
	var d Diagnosis
	var arm, cons sql.NullString
	var agr sql.NullInt64
	var statuses, judges string
	if err := q.Scan(&d.Line, &d.RunID, &d.Domain, &d.CaseID, &d.ConditionID, &d.Writer, &d.WriterRunID, &d.ChainID,
		&arm, &d.ProbeID, &d.RequestKind, &d.Request, &d.ErrorBlock, &d.Failure, &d.LoopBlock, &statuses, &judges,
		&cons, &agr); err != nil {
		return d, err
	}
	if arm.Valid {
		d.Arm = &arm.String
	}
	if cons.Valid {
		d.ConsensusCause = &cons.String
	}
	if agr.Valid {
		a := int(agr.Int64)
		d.Agreement = &a
	}
	if err := json.Unmarshal([]byte(statuses), &d.AttemptStatuses); err != nil {
		return d, fmt.Errorf("diagnosis line %d: attempt_statuses: %w", d.Line, err)
	}
	var js map[string]JudgeVerdict
	if err := json.Unmarshal([]byte(judges), &js); err != nil {
		return d, fmt.Errorf("diagnosis line %d: judges: %w", d.Line, err)
	}
	for name, j := range js {
		j.Judge = name
		d.Judges = append(d.Judges, j)
	}
	sort.Slice(d.Judges, func(i, j int) bool { return d.Judges[i].Judge < d.Judges[j].Judge })
	return d, nil
}

// Agreement is how far a row's judges agree, computed here rather than taken from the file.
type Agreement struct {
	// Cause is the most common cause (ties broken by name); Agree judges gave it, of Judges.
	Cause  string `json:"cause"`
	Agree  int    `json:"agree"`
	Judges int    `json:"judges"`
	// EnteredAgree: every judge gives the same error_entered_here (EnteredHere).
	EnteredAgree bool `json:"entered_agree"`
	EnteredHere  bool `json:"entered_here"`
}

// JudgeAgreement counts the judges behind the most common cause and whether they all agree
// on error_entered_here.
func JudgeAgreement(judges []JudgeVerdict) Agreement {
	a := Agreement{Judges: len(judges)}
	if len(judges) == 0 {
		return a
	}
	counts := map[string]int{}
	for _, j := range judges {
		counts[j.Cause]++
	}
	for c, n := range counts {
		if n > a.Agree || (n == a.Agree && c < a.Cause) {
			a.Cause, a.Agree = c, n
		}
	}
	a.EnteredAgree, a.EnteredHere = true, judges[0].ErrorEnteredHere
	for _, j := range judges[1:] {
		if j.ErrorEnteredHere != a.EnteredHere {
			a.EnteredAgree = false
		}
	}
	return a
}

// String is e.g. "judges 2/2 agree: restatement_applied".
func (a Agreement) String() string {
	if a.Judges == 0 {
		return "no judges"
	}
	if a.Agree == a.Judges {
		return fmt.Sprintf("judges %d/%d agree: %s", a.Agree, a.Judges, a.Cause)
	}
	return fmt.Sprintf("judges %d/%d: %s", a.Agree, a.Judges, a.Cause)
}

// firstDuplicateKey is the path of the first key that appears twice in one object of raw
// ("" when none, or when raw does not decode): encoding/json keeps the last silently.
func firstDuplicateKey(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var walk func(path string) (string, error)
	walk = func(path string) (string, error) {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return "", err
				}
				k, _ := kt.(string)
				p := k
				if path != "" {
					p = path + "." + k
				}
				if seen[k] {
					return p, nil
				}
				seen[k] = true
				if d, err := walk(p); err != nil || d != "" {
					return d, err
				}
			}
			_, err = dec.Token()
			return "", err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if d, err := walk(fmt.Sprintf("%s[%d]", path, i)); err != nil || d != "" {
					return d, err
				}
			}
			_, err = dec.Token()
			return "", err
		}
		return "", nil
	}
	d, _ := walk("")
	return d
}
