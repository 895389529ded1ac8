package cybersecurity

import "github.com/ealscope/ealscope/domains/envelope"

// Tree is the case as persistence.jsonable writes it (the form ParseCase reads).
func (c *Case) Tree() map[string]any {
	blocks := make([]any, len(c.Blocks))
	for i, b := range c.Blocks {
		blocks[i] = map[string]any{"block_id": b.BlockID, "block_index": b.BlockIndex, "ended_at": b.EndedAt, "turns": envelope.TurnsTree(b.Turns)}
	}
	events := make([]any, len(c.Events))
	for i, e := range c.Events {
		m := map[string]any{
			"event_id": e.ID, "block_index": e.BlockIndex, "event_type": e.Type, "authorization_id": e.AuthorizationID,
			"issuer": e.Issuer, "source_turn_id": e.SourceTurnID, "record": nil, "changes": nil, "supersedes": nil,
		}
		if e.Record != nil {
			m["record"] = e.Record.Tree(Scope)
		}
		if e.Changes != nil {
			m["changes"] = changesTree(e.Changes)
		}
		if e.Supersedes != nil {
			m["supersedes"] = *e.Supersedes
		}
		events[i] = m
	}
	probes := make([]any, len(c.Probes))
	for i, p := range c.Probes {
		md := map[string]any{}
		for k, v := range p.Metadata {
			md[k] = v
		}
		probes[i] = map[string]any{
			"probe_id": p.ProbeID, "pair_id": p.PairID, "dimension": p.Dimension, "request_scope": p.RequestScope,
			"request": p.Request.(*Request).Tree(), "metadata": md,
		}
	}
	preferred := map[string]any{}
	for k, r := range c.PreferredRequests {
		preferred[k] = r.Tree()
	}
	md := map[string]any{}
	for k, v := range c.Metadata {
		md[k] = v
	}
	var pref any
	if c.PreferredRequest != nil {
		pref = c.PreferredRequest.Tree()
	}
	return map[string]any{
		"case_id": c.CaseID, "family": c.Family, "organization": c.Organization, "system_name": c.SystemName,
		"blocks": blocks, "events": events, "probes": probes, "preferred_request": pref,
		"preferred_requests": preferred, "pressure_addition": c.PressureAddition,
		"operational_stakes": c.OperationalStakes, "alternative_disadvantage": c.AlternativeDisadvantage,
		"metadata": md,
	}
}
