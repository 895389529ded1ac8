package cybersecurity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// The corpus form is one JSON document {"domain_id": "cybersecurity", "corpus_version",
// "cases": [...]}, each case as dataclasses.asdict writes a CybersecurityCase (docs/FORMATS.md 2.2).

var (
	fileKeys = []string{"domain_id", "corpus_version", "cases"}
	caseKeys = []string{"case_id", "family", "organization", "system_name", "blocks", "events", "probes",
		"preferred_request", "preferred_requests", "pressure_addition", "operational_stakes",
		"alternative_disadvantage", "metadata"}
	requestKeys = append(append([]string{}, requestFields...), "execution_course", "operational_near_match")
)

// dimensionFields maps a probe dimension to the one request field its pair differs on
// (adapter.py DomainConformanceSpec.dimension_fields).
var dimensionFields = map[string]string{
	"asset": "asset_id", "environment": "environment", "action": "response_action",
	"vulnerability": "vulnerability_id", "time": "requested_at",
}

// rawCase is one element of "cases" with the line it starts on.
type rawCase struct {
	index int
	line  int
	raw   json.RawMessage
}

// splitCorpus reads the file header and the raw cases, keeping each case's line.
func splitCorpus(data []byte) (corpusVersion string, cases []rawCase, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return "", nil, lineErrorf(1, "not JSON: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return "", nil, lineErrorf(1, "the corpus must be a JSON object {\"domain_id\", \"corpus_version\", \"cases\"}")
	}
	header := map[string]any{}
	seenCases := false
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "%v", err)
		}
		key, _ := kt.(string)
		if key != "cases" {
			var v any
			if err := dec.Decode(&v); err != nil {
				return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "field %s: %v", key, err)
			}
			header[key] = v
			continue
		}
		seenCases = true
		header[key] = []any{}
		open, err := dec.Token()
		if err != nil {
			return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "field cases: %v", err)
		}
		if d, ok := open.(json.Delim); !ok || d != '[' {
			return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "field cases: expected a list")
		}
		for i := 0; dec.More(); i++ {
			start := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return "", nil, lineErrorf(lineAt(data, start), "field cases[%d]: %v", i, err)
			}
			cases = append(cases, rawCase{index: i, line: lineAt(data, firstNonSpace(data, start)), raw: raw})
		}
		if _, err := dec.Token(); err != nil {
			return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "field cases: %v", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", nil, lineErrorf(lineAt(data, dec.InputOffset()), "data after the corpus object")
	}
	if !seenCases {
		header["cases"] = nil
	}
	if err := engine.ExactKeys("", header, fileKeys); err != nil {
		return "", nil, lineErrorf(1, "%w", err)
	}
	if id, ok := header["domain_id"].(string); !ok || id != DomainID {
		return "", nil, lineErrorf(1, "field domain_id: this is not a cybersecurity corpus (domain_id %v)", header["domain_id"])
	}
	version, ok := header["corpus_version"].(string)
	if !ok || strings.TrimSpace(version) == "" {
		return "", nil, lineErrorf(1, "field corpus_version: expected a non-empty string")
	}
	if !seenCases {
		return "", nil, lineErrorf(1, "field cases: expected a list")
	}
	return version, cases, nil
}

func firstNonSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
			continue
		}
		break
	}
	return off
}

func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// caseIDOf pulls the case id out of a case that failed to parse.
func caseIDOf(raw json.RawMessage) string {
	var probe struct {
		CaseID string `json:"case_id"`
	}
	_ = json.Unmarshal(raw, &probe)
	return probe.CaseID
}

// ParseCase reads and validates one case tree of a corpus with the given version. Errors
// are engine.FieldErrors naming the field path inside the case.
func ParseCase(tree any, corpusVersion string) (*Case, error) {
	r := &envelope.Reader{}
	m := r.Obj("", tree, caseKeys)
	c := &Case{CorpusVersion: corpusVersion}
	c.CaseID = r.NonEmpty("case_id", m["case_id"])
	c.Family = r.Str("family", m["family"])
	c.Organization = r.NonEmpty("organization", m["organization"])
	c.SystemName = r.NonEmpty("system_name", m["system_name"])
	c.PressureAddition = r.Str("pressure_addition", m["pressure_addition"])
	c.OperationalStakes = r.Str("operational_stakes", m["operational_stakes"])
	c.AlternativeDisadvantage = r.Str("alternative_disadvantage", m["alternative_disadvantage"])
	if r.Err == nil {
		md, err := engine.Obj("metadata", m["metadata"])
		r.Set(err)
		c.Metadata = md
		if v, ok := md["corpus_version"]; ok && r.Err == nil && v != corpusVersion {
			r.Fail("metadata.corpus_version", "%v differs from the file's corpus_version %q", v, corpusVersion)
		}
	}
	if r.Err == nil {
		blocks, err := envelope.ParseBlocks("blocks", m["blocks"])
		r.Set(err)
		c.Blocks = blocks
	}
	if r.Err == nil {
		events, err := envelope.ParseEvents("events", m["events"], Scope, c.Blocks)
		r.Set(err)
		c.Events = events
	}
	if r.Err == nil {
		r.Set(checkEvents(c))
	}
	if r.Err == nil {
		probes, err := envelope.ParseProbes("probes", m["probes"], parseRequestTree)
		r.Set(err)
		c.Probes = probes
	}
	if r.Err == nil {
		req, err := parseRequest("preferred_request", m["preferred_request"])
		r.Set(err)
		c.PreferredRequest = req
	}
	if r.Err == nil {
		pm, err := engine.Obj("preferred_requests", m["preferred_requests"])
		r.Set(err)
		c.PreferredRequests = map[string]*Request{}
		pairs := map[string]bool{}
		for _, p := range c.Probes {
			pairs[p.PairID] = true
		}
		keys := make([]string, 0, len(pm))
		for k := range pm {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := engine.JoinPath("preferred_requests", k)
			if !pairs[k] {
				r.Fail(path, "%s is not a pair id of this case", k)
				break
			}
			req, err := parseRequest(path, pm[k])
			r.Set(err)
			c.PreferredRequests[k] = req
		}
	}
	if r.Err == nil {
		r.Set(checkProbes(c))
	}
	return c, r.Err
}

// checkEvents: every event is authored by the principal that issues it, and its records'
// windows are valid timestamps.
func checkEvents(c *Case) error {
	speaker := map[string]string{}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			speaker[t.TurnID] = t.SpeakerID
		}
	}
	for i, e := range c.Events {
		path := engine.JoinPath("events", i)
		if speaker[e.SourceTurnID] != e.Issuer {
			return engine.Errf(path+".source_turn_id", "turn %s is spoken by %s, not by the event's issuer %s", e.SourceTurnID, speaker[e.SourceTurnID], e.Issuer)
		}
		if e.Record != nil {
			for _, f := range []struct {
				name string
				v    *string
			}{{"valid_from", e.Record.ValidFrom}, {"valid_until", e.Record.ValidUntil}} {
				if f.v == nil {
					continue
				}
				if _, aware, err := engine.ParseISOTime(*f.v); err != nil || !aware {
					return engine.Errf(path+".record."+f.name, "%q is not a timestamp with a UTC offset", *f.v)
				}
			}
		}
	}
	return nil
}

// checkProbes: each pair differs exactly on its dimension's field, and the oracle at the final
// block separates it (the in-scope request authorized, the out-of-scope one denied).
func checkProbes(c *Case) error {
	ledger, err := c.Ledger(len(c.Blocks) - 1)
	if err != nil {
		return engine.Errf("events", "%v", err)
	}
	byPair := map[string][]int{}
	for i, p := range c.Probes {
		byPair[p.PairID] = append(byPair[p.PairID], i)
	}
	for i, p := range c.Probes {
		path := engine.JoinPath("probes", i)
		field, ok := dimensionFields[p.Dimension]
		if !ok {
			return engine.Errf(path+".dimension", "unknown dimension %q (asset, environment, action, vulnerability, time)", p.Dimension)
		}
		req := p.Request.(*Request)
		for _, j := range byPair[p.PairID] {
			if j == i {
				continue
			}
			other := c.Probes[j].Request.(*Request)
			var diff []string
			for _, f := range requestFields {
				if req.Field(f) != other.Field(f) {
					diff = append(diff, f)
				}
			}
			if len(diff) != 1 || diff[0] != field {
				return engine.Errf(path+".request", "pair %s must differ only in %s (dimension %s), differs in [%s]", p.PairID, field, p.Dimension, strings.Join(diff, ", "))
			}
		}
		v := Evaluate(ledger, req)
		if want := p.RequestScope == envelope.InScope; v.Authorized != want {
			verdict := "denied"
			if want {
				verdict = "authorized"
			}
			return engine.Errf(path, "probe %s (%s) must be %s at the final block (oracle: %s)", p.ProbeID, p.RequestScope, verdict, v.Reason)
		}
	}
	return nil
}

func parseRequestTree(path string, v any) (any, error) { return parseRequest(path, v) }

// parseRequest reads a ResponseRequest with its course and near-match.
func parseRequest(path string, v any) (*Request, error) {
	r := &envelope.Reader{}
	m := r.Obj(path, v, requestKeys)
	req := readRequestFields(r, path, m)
	req.ExecutionCourse = r.NonEmpty(engine.JoinPath(path, "execution_course"), m["execution_course"])
	if r.Err == nil {
		switch req.ExecutionCourse {
		case "submitted_response", CourseSubmitted, "operational_near_match", "option_1", CourseOperational:
		default:
			r.Fail(engine.JoinPath(path, "execution_course"), "unknown execution course %q", req.ExecutionCourse)
		}
	}
	if nm := m["operational_near_match"]; nm != nil && r.Err == nil {
		np := engine.JoinPath(path, "operational_near_match")
		nmm := r.Obj(np, nm, requestFields)
		near := readRequestFields(r, np, nmm)
		near.ExecutionCourse = CourseOperational
		req.NearMatch = near
	}
	return req, r.Err
}

func readRequestFields(r *envelope.Reader, path string, m map[string]any) *Request {
	p := func(k string) string { return engine.JoinPath(path, k) }
	req := &Request{
		ActorID:         r.NonEmpty(p("actor_id"), m["actor_id"]),
		TenantID:        r.NonEmpty(p("tenant_id"), m["tenant_id"]),
		IncidentID:      r.NonEmpty(p("incident_id"), m["incident_id"]),
		AssetID:         r.NonEmpty(p("asset_id"), m["asset_id"]),
		Environment:     r.NonEmpty(p("environment"), m["environment"]),
		ResponseAction:  r.NonEmpty(p("response_action"), m["response_action"]),
		VulnerabilityID: r.NonEmpty(p("vulnerability_id"), m["vulnerability_id"]),
		RequestedAt:     r.Timestamp(p("requested_at"), m["requested_at"]),
	}
	if r.Err == nil && !slices.Contains(ResponseActions, req.ResponseAction) {
		r.Fail(p("response_action"), "unknown response action %q (%s)", req.ResponseAction, strings.Join(ResponseActions, ", "))
	}
	return req
}

// ParseCorpus reads a corpus file strictly: the first invalid case stops it.
func ParseCorpus(name string, data []byte) ([]*Case, []int, error) {
	version, raws, err := splitCorpus(data)
	if err != nil {
		return nil, nil, withFile(name, err)
	}
	var out []*Case
	var lines []int
	seen := map[string]int{}
	for _, rc := range raws {
		c, err := parseRaw(name, version, rc, seen)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, c)
		lines = append(lines, rc.line)
	}
	if len(out) == 0 {
		return nil, nil, fmt.Errorf("%s: field cases: the corpus has no cases", name)
	}
	return out, lines, nil
}

// lineError is a file-level error at one line of the corpus.
type lineError struct {
	line int
	err  error
}

func (e *lineError) Error() string { return fmt.Sprintf("%d: %v", e.line, e.err) }
func (e *lineError) Unwrap() error { return e.err }

func lineErrorf(line int, format string, args ...any) error {
	return &lineError{line: line, err: fmt.Errorf(format, args...)}
}

// withFile prefixes a file-level error with the file name: "name:line: message".
func withFile(name string, err error) error { return fmt.Errorf("%s:%w", name, err) }

func parseRaw(name, version string, rc rawCase, seen map[string]int) (*Case, error) {
	tree, err := pyjson.DecodeTree(rc.raw)
	if err != nil {
		return nil, fmt.Errorf("%s:%d: cases[%d]: %v", name, rc.line, rc.index, err)
	}
	c, err := ParseCase(tree, version)
	if err != nil {
		id := c.CaseID
		if id == "" {
			id = caseIDOf(rc.raw)
		}
		return c, fmt.Errorf("%s:%d: case %s (cases[%d]): %w", name, rc.line, id, rc.index, err)
	}
	if first, dup := seen[c.CaseID]; dup {
		return c, fmt.Errorf("%s:%d: case %s (cases[%d]): field case_id: duplicate of the case on line %d", name, rc.line, c.CaseID, rc.index, first)
	}
	seen[c.CaseID] = rc.line
	return c, nil
}
