package procurement

import (
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// EAL-Bench compiles procurement cases from YAML authoring sources and stores
// authoring_hash = sha256(canonical JSON of the normalised source). The source can be rebuilt
// from the compiled case (strip the case-id prefixes, turn ordinals back to turn_NNN refs,
// drop transaction ids and probe names), which makes the hash an integrity check of a corpus
// line. Sources either leave turn times to the compiler (calibration_v1) or state every
// turn's occurred_at (benchmark_v1); both variants are computed.

// AuthoringHashes returns the hash of the rebuilt source without and with turn times.
func AuthoringHashes(c *Case) (derivedTimes, explicitTimes string, err error) {
	a, err := authoringSource(c, false)
	if err != nil {
		return "", "", err
	}
	b, err := authoringSource(c, true)
	if err != nil {
		return "", "", err
	}
	return pyjson.MustContentHash(a), pyjson.MustContentHash(b), nil
}

// AuthoringHashMatches says whether the case's authoring_hash reproduces.
func AuthoringHashMatches(c *Case) (bool, error) {
	a, b, err := AuthoringHashes(c)
	if err != nil {
		return false, err
	}
	return c.AuthoringHash == a || c.AuthoringHash == b, nil
}

func authoringSource(c *Case, withTimes bool) (map[string]any, error) {
	prefix := c.CaseID + "_"
	strip := func(field, v string) (string, error) {
		if !strings.HasPrefix(v, prefix) {
			return "", fmt.Errorf("field %s: %q lacks the case-id prefix %q", field, v, prefix)
		}
		return strings.TrimPrefix(v, prefix), nil
	}
	if len(c.Blocks) == 0 || len(c.Blocks[0].Turns) == 0 {
		return nil, fmt.Errorf("case has no turns")
	}
	namespace := c.Blocks[0].Turns[0].TurnID[4:12]
	turnRef := func(id string) string { return "turn_" + id[len(id)-3:] }
	refs := func(ids []string) []any {
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = turnRef(id)
		}
		return out
	}
	var blocks []any
	for _, b := range c.Blocks {
		ref, err := strip("block_id", b.BlockID)
		if err != nil {
			return nil, err
		}
		var turns []any
		for _, t := range b.Turns {
			turn := map[string]any{"ref": turnRef(t.TurnID), "actor_id": t.ActorID, "speaker": t.Speaker, "content": t.Content}
			if withTimes {
				turn["occurred_at"] = t.OccurredAt
			}
			turns = append(turns, turn)
		}
		blocks = append(blocks, map[string]any{"ref": ref, "title": b.Title, "ended_at": b.EndedAt, "turns": turns})
	}
	var events []any
	for _, e := range c.Events {
		ref, err := strip("event_id", e.EventID)
		if err != nil {
			return nil, err
		}
		blockRef, err := strip("block_id", e.BlockID)
		if err != nil {
			return nil, err
		}
		ev := map[string]any{
			"ref": ref, "event_type": e.EventType, "issuer": e.Issuer, "block_ref": blockRef,
			"effective_at": e.EffectiveAt, "authorization_ref": e.AuthorizationID, "source_turn_refs": refs(e.SourceTurnIDs),
		}
		if r := e.Record; r != nil {
			rec := map[string]any{
				"authorization_ref": r.AuthorizationID, "issuer": r.Issuer, "grantee": r.Grantee, "effect": r.Effect,
				"action": r.Action, "vendor": r.Vendor, "allowed_categories": r.AllowedCategories, "max_amount": r.MaxAmount,
				"currency": r.Currency, "valid_from": r.ValidFrom, "valid_until": r.ValidUntil, "status": r.Status,
				"source_turn_refs": refs(r.SourceTurnIDs),
			}
			if r.Supersedes != nil {
				rec["supersedes_ref"] = *r.Supersedes
			}
			ev["record"] = rec
		}
		if e.Patch != nil {
			ev["patch"] = e.Patch
		}
		events = append(events, ev)
	}
	var pairs []any
	for _, p := range c.ProbePairs {
		ref, err := strip("pair_id", p.PairID)
		if err != nil {
			return nil, err
		}
		side := func(tx Transaction) map[string]any {
			v := tx.Visible()
			return v
		}
		pairs = append(pairs, map[string]any{"ref": ref, "dimension": p.Dimension, "in_scope": side(p.InScope.Transaction), "out_of_scope": side(p.OutOfScope.Transaction)})
	}
	return map[string]any{
		"schema_version": c.SchemaVersion, "case_id": c.CaseID, "source_id_namespace": namespace,
		"benchmark": c.Benchmark, "policy": c.Policy, "authorized_issuers": c.AuthorizedIssuers,
		"blocks": blocks, "events": events, "probe_pairs": pairs, "tags": c.Tags,
	}, nil
}
