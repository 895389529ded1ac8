package finance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

var (
	corpusKeys = []string{"schema_version", "corpus_version", "release_id", "mechanism", "split", "cases"}
	caseKeys   = []string{
		"case_id", "family", "organization", "portfolio_name", "blocks", "events", "probes",
		"preferred_requests", "pressure_addition", "operational_stakes", "alternative_disadvantage", "metadata",
	}
	// dimensionFields maps each probe dimension to the request field it varies (EAL-Bench's
	// finance conformance dimension_fields).
	dimensionFields = map[string]string{
		"instrument_id": "instrument_id", "side": "side", "order_type": "order_type", "requested_at": "requested_at",
	}
)

// ParsedCorpus is a corpus file read case by case: the header, and each case or its error.
type ParsedCorpus struct {
	Corpus
	Each []engine.ParsedCase
}

// readHeader reads the corpus document and its top-level fields; the cases stay raw.
func readHeader(name string, data []byte) (Corpus, []any, error) {
	tree, err := pyjson.DecodeTree(data)
	if err != nil {
		return Corpus{}, nil, fmt.Errorf("%s: not a JSON document: %w", name, err)
	}
	m, err := engine.Obj("", tree)
	if err != nil {
		return Corpus{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	if v, ok := m["schema_version"].(string); !ok || !slices.Contains(knownCorpusSchemas, v) {
		return Corpus{}, nil, fmt.Errorf("%s: field schema_version: %s is not a finance corpus schema this reader knows (known: %s)",
			name, describe(m["schema_version"]), strings.Join(knownCorpusSchemas, ", "))
	}
	r := &envelope.Reader{}
	r.Obj("", m, corpusKeys)
	c := Corpus{
		SchemaVersion: m["schema_version"].(string),
		CorpusVersion: r.NonEmpty("corpus_version", m["corpus_version"]),
		ReleaseID:     r.NonEmpty("release_id", m["release_id"]),
		Mechanism:     r.NonEmpty("mechanism", m["mechanism"]),
		Split:         r.NonEmpty("split", m["split"]),
	}
	cases := r.NonEmptyList("cases", m["cases"], "a corpus needs at least one case")
	if r.Err != nil {
		return Corpus{}, nil, fmt.Errorf("%s: %w", name, r.Err)
	}
	return c, cases, nil
}

// ParseFile reads a corpus file case by case, so one invalid case does not hide the others.
// A file whose header is unreadable is one error.
func ParseFile(name string, data []byte) (*ParsedCorpus, error) {
	header, raw, err := readHeader(name, data)
	if err != nil {
		return nil, err
	}
	pc := &ParsedCorpus{Corpus: header}
	seen := map[string]int{}
	lines := caseLines(data)
	for i, item := range raw {
		line := i + 1
		if len(lines) == len(raw) {
			line = lines[i]
		}
		entry := engine.ParsedCase{Line: line}
		c, err := readCase(engine.JoinPath("cases", i), item, header.CorpusVersion)
		entry.CaseID = c.CaseID
		switch {
		case err != nil:
			entry.Err = lineErr(name, line, i, c.CaseID, err)
		case seen[c.CaseID] != 0:
			entry.Err = lineErr(name, line, i, c.CaseID, engine.Errf(engine.JoinPath(engine.JoinPath("cases", i), "case_id"), "duplicate of cases[%d]", seen[c.CaseID]-1))
		default:
			c.Header = header
			seen[c.CaseID] = i + 1
			pc.Cases = append(pc.Cases, c)
			entry.Case = ToEngine(c, line)
		}
		pc.Each = append(pc.Each, entry)
	}
	return pc, nil
}

// ParseCorpusFile reads a corpus strictly: the first invalid case is the error.
func ParseCorpusFile(name string, data []byte) (*Corpus, error) {
	pc, err := ParseFile(name, data)
	if err != nil {
		return nil, err
	}
	for _, e := range pc.Each {
		if e.Err != nil {
			return nil, e.Err
		}
	}
	return &pc.Corpus, nil
}

// readCase reads one FinanceCase; the partly read case is returned with an error (for its id).
func readCase(path string, v any, corpusVersion string) (*Case, error) {
	c := &Case{CorpusVersion: corpusVersion}
	m, err := engine.Obj(path, v)
	if err != nil {
		return c, err
	}
	if id, ok := m["case_id"].(string); ok {
		c.CaseID = id
	}
	r := &envelope.Reader{}
	r.Obj(path, m, caseKeys)
	p := func(k string) string { return engine.JoinPath(path, k) }
	if id := r.NonEmpty(p("case_id"), m["case_id"]); id != "" {
		c.CaseID = id
	}
	c.Family = r.NonEmpty(p("family"), m["family"])
	c.Organization = r.NonEmpty(p("organization"), m["organization"])
	c.PortfolioName = r.NonEmpty(p("portfolio_name"), m["portfolio_name"])
	c.PressureAddition = r.Str(p("pressure_addition"), m["pressure_addition"])
	c.OperationalStakes = r.NonEmpty(p("operational_stakes"), m["operational_stakes"])
	c.AlternativeDisadvantage = r.NonEmpty(p("alternative_disadvantage"), m["alternative_disadvantage"])
	if r.Err == nil {
		md, err := engine.Obj(p("metadata"), m["metadata"])
		r.Set(err)
		c.Metadata = md
		if v, ok := md["corpus_version"]; ok && r.Err == nil && v != corpusVersion {
			r.Fail(p("metadata.corpus_version"), "%s differs from the file's corpus_version %q", describe(v), corpusVersion)
		}
	}
	if r.Err == nil {
		c.Blocks, err = envelope.ParseBlocks(p("blocks"), m["blocks"])
		r.Set(err)
	}
	if r.Err == nil {
		c.Events, err = envelope.ParseEvents(p("events"), m["events"], ScopeSpec, c.Blocks)
		r.Set(err)
	}
	if r.Err == nil {
		r.Set(checkEvents(p("events"), c))
	}
	if r.Err == nil {
		c.Probes, err = envelope.ParseProbes(p("probes"), m["probes"], func(path string, v any) (any, error) {
			return readRequest(path, v, false)
		})
		r.Set(err)
	}
	if r.Err == nil {
		r.Set(checkProbes(p("probes"), c))
	}
	if r.Err == nil {
		r.Set(readPreferred(p("preferred_requests"), m["preferred_requests"], c))
	}
	return c, r.Err
}

// checkEvents adds finance's own rules to the toolkit's event checks: every event is issued by
// the portfolio mandate officer from one of that officer's turns, records carry complete,
// non-null scopes with list items written without surrounding space, and after every block
// the active ledger is a valid typed state (so the faithful memory always parses).
func checkEvents(path string, c *Case) error {
	speaker := map[string]string{}
	for _, b := range c.Blocks {
		for _, t := range b.Turns {
			speaker[t.TurnID] = t.SpeakerID
		}
	}
	for i, e := range c.Events {
		ep := engine.JoinPath(path, i)
		if e.Issuer != MandateIssuer {
			return engine.Errf(engine.JoinPath(ep, "issuer"), "finance events are issued by %s, got %q", MandateIssuer, e.Issuer)
		}
		if s := speaker[e.SourceTurnID]; s != MandateIssuer {
			return engine.Errf(engine.JoinPath(ep, "source_turn_id"), "turn %s is authored by %q, not by %s", e.SourceTurnID, s, MandateIssuer)
		}
		var scopes []envelope.Scope
		if e.Record != nil {
			if err := completeScope(engine.JoinPath(ep, "record.scope"), e.Record.Scope); err != nil {
				return err
			}
			scopes = append(scopes, e.Record.Scope)
		}
		if e.Changes != nil && e.Changes.Scope != nil {
			scopes = append(scopes, e.Changes.Scope)
		}
		for _, s := range scopes {
			for _, f := range listFields {
				l, _ := s.List(f)
				for j, item := range l {
					if strings.TrimSpace(item) != item {
						return engine.Errf(engine.JoinPath(engine.JoinPath(ep, "scope."+f), j), "%q has surrounding white space", item)
					}
				}
			}
		}
	}
	for _, b := range c.Blocks {
		ledger, err := Ledger(c, b.BlockIndex)
		if err != nil {
			return engine.Errf(path, "%v", err)
		}
		tree, err := pyjson.Retree(TypedPayloadOf(ledger))
		if err != nil {
			return err
		}
		if _, err := ParseTypedPayload(tree); err != nil {
			return engine.Errf(path, "the active mandates after block %d are not a valid typed state: %v", b.BlockIndex, err)
		}
	}
	return nil
}

// completeScope requires every scope field of an issued record to be set (not null).
func completeScope(path string, s envelope.Scope) error {
	for _, f := range ScopeSpec.Fields {
		if s[f.Name] == nil {
			return engine.Errf(engine.JoinPath(path, f.Name), "an issued mandate sets every scope field")
		}
	}
	return nil
}

// checkProbes requires the finance dimensions, and the pair's two requests to differ in the
// dimension's field.
func checkProbes(path string, c *Case) error {
	in := map[string]TradeRequest{}
	for i, pr := range c.Probes {
		if _, ok := dimensionFields[pr.Dimension]; !ok {
			return engine.Errf(engine.JoinPath(engine.JoinPath(path, i), "dimension"), "%q is not a finance dimension (instrument_id, side, order_type, requested_at)", pr.Dimension)
		}
		req := pr.Request.(TradeRequest)
		if pr.RequestScope == envelope.InScope {
			in[pr.PairID] = req
		}
	}
	for i, pr := range c.Probes {
		if pr.RequestScope != envelope.OutOfScope {
			continue
		}
		a, b := in[pr.PairID].Visible(), pr.Request.(TradeRequest).Visible()
		field := dimensionFields[pr.Dimension]
		if a[field] == b[field] {
			return engine.Errf(engine.JoinPath(engine.JoinPath(path, i), "request."+field), "the pair's in-scope and out-of-scope requests must differ in %s", field)
		}
	}
	return nil
}

// readPreferred reads preferred_requests: one request per known pair id.
func readPreferred(path string, v any, c *Case) error {
	m, err := engine.Obj(path, v)
	if err != nil {
		return err
	}
	pairs := map[string]bool{}
	for _, pr := range c.Probes {
		pairs[pr.PairID] = true
	}
	c.PreferredRequests = map[string]TradeRequest{}
	for id, raw := range m {
		kp := engine.JoinPath(path, id)
		if !pairs[id] {
			return engine.Errf(kp, "no probe pair has id %s", id)
		}
		req, err := readRequest(kp, raw, false)
		if err != nil {
			return err
		}
		c.PreferredRequests[id] = req
	}
	return nil
}

// lineErr names the file, the case's line and index, the case and the field.
func lineErr(name string, line, index int, caseID string, err error) error {
	return envelope.Errorf(fmt.Sprintf("%s:%d", name, line), index, caseID, err)
}
