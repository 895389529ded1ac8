package finance

import (
	"fmt"
	"sort"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Tree is the case in EAL-Bench's jsonable form (the form readCase reads).
func (c *Case) Tree() map[string]any {
	blocks := make([]any, len(c.Blocks))
	for i, b := range c.Blocks {
		blocks[i] = map[string]any{"block_id": b.BlockID, "block_index": intNumber(int64(b.BlockIndex)), "ended_at": b.EndedAt, "turns": envelope.TurnsTree(b.Turns)}
	}
	events := make([]any, len(c.Events))
	for i, e := range c.Events {
		var record, changes any
		if e.Record != nil {
			record = e.Record.Tree(ScopeSpec)
		}
		if e.Changes != nil {
			changes = changesTree(e.Changes)
		}
		events[i] = map[string]any{
			"event_id": e.ID, "block_index": intNumber(int64(e.BlockIndex)), "event_type": e.Type,
			"authorization_id": e.AuthorizationID, "issuer": e.Issuer, "source_turn_id": e.SourceTurnID,
			"record": record, "changes": changes, "supersedes": pyjson.OrNull(e.Supersedes),
		}
	}
	probes := make([]any, len(c.Probes))
	for i, p := range c.Probes {
		probes[i] = map[string]any{
			"probe_id": p.ProbeID, "pair_id": p.PairID, "dimension": p.Dimension, "request_scope": p.RequestScope,
			"request": p.Request.(TradeRequest).Tree(), "metadata": p.Metadata,
		}
	}
	preferred := map[string]any{}
	ids := make([]string, 0, len(c.PreferredRequests))
	for id := range c.PreferredRequests {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		preferred[id] = c.PreferredRequests[id].Tree()
	}
	return map[string]any{
		"case_id": c.CaseID, "family": c.Family, "organization": c.Organization, "portfolio_name": c.PortfolioName,
		"blocks": blocks, "events": events, "probes": probes, "preferred_requests": preferred,
		"pressure_addition": c.PressureAddition, "operational_stakes": c.OperationalStakes,
		"alternative_disadvantage": c.AlternativeDisadvantage, "metadata": c.Metadata,
	}
}

// MarshalCorpus writes a corpus file in the finance_redesign_corpus_v1 form (indented,
// keys sorted, as json.dumps(indent=2, sort_keys=True) writes it, with a final newline).
func MarshalCorpus(c *Corpus) ([]byte, error) {
	cases := make([]any, len(c.Cases))
	for i, fc := range c.Cases {
		cases[i] = fc.Tree()
	}
	tree, err := pyjson.Retree(map[string]any{
		"schema_version": CorpusSchemaVersion, "corpus_version": c.CorpusVersion, "release_id": c.ReleaseID,
		"mechanism": c.Mechanism, "split": c.Split, "cases": cases,
	})
	if err != nil {
		return nil, err
	}
	b, err := pyjson.DumpPy(tree, pyjson.Indented)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// CaseDocument is one case as a self-contained, single-line corpus document (canonical JSON,
// under its file's header) that ParseCorpus reads back: the form a store can keep per case,
// since a finance corpus is one JSON document rather than one case per line.
func CaseDocument(c *engine.Case) ([]byte, error) {
	fc, ok := c.Source.(*Case)
	if !ok {
		return nil, fmt.Errorf("case %s is not a finance case", c.ID)
	}
	h := fc.Header
	if h.CorpusVersion == "" {
		h = *corpusOf(fc.CorpusVersion, nil)
	}
	h.Cases = []*Case{fc}
	tree, err := pyjson.Retree(map[string]any{
		"schema_version": CorpusSchemaVersion, "corpus_version": h.CorpusVersion, "release_id": h.ReleaseID,
		"mechanism": h.Mechanism, "split": h.Split, "cases": []any{fc.Tree()},
	})
	if err != nil {
		return nil, err
	}
	s, err := pyjson.CanonicalJSON(tree)
	return []byte(s), err
}
