package audience

import (
	"github.com/ealscope/ealscope/engine"
)

// Encode writes a sidecar: indented JSON, keys sorted, the same bytes for the same File.
func Encode(f *File) ([]byte, error) {
	cases := map[string]any{}
	for _, id := range f.Order {
		cases[id] = entryTree(f.Cases[id])
	}
	return marshalIndent(map[string]any{"format": Format, "domain_id": f.DomainID, "corpus_version": f.CorpusVersion, "cases": cases})
}

func audienceTree(a engine.Audience) map[string]any {
	if a.Public {
		return map[string]any{"public": true}
	}
	return map[string]any{"principals": nonNil(a.Principals)}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func entryTree(e *Entry) map[string]any {
	a := &e.Audience
	principals := []any{}
	for _, p := range a.Principals {
		principals = append(principals, map[string]any{"id": p.ID, "can_grant": p.CanGrant})
	}
	channels := []any{}
	for _, c := range a.Channels {
		channels = append(channels, map[string]any{"id": c.ID, "visibility": c.Visibility, "participants": nonNil(c.Participants)})
	}
	requests := []any{}
	for _, r := range a.Requests {
		requests = append(requests, map[string]any{"id": r.ID, "probe": r.ProbeID, "principal": r.Principal, "channel": r.Channel})
	}
	out := map[string]any{"principals": principals, "channels": channels, "requests": requests}
	if len(a.TurnChannels) > 0 {
		out["turn_channels"] = a.TurnChannels
	}
	if len(a.Grants) > 0 {
		grants := []any{}
		for _, g := range a.Grants {
			gt := map[string]any{"id": g.ID, "by": g.By, "at_turn": g.AtTurn}
			if g.ObjectRecord != "" {
				gt["object"] = map[string]any{"record": g.ObjectRecord}
			} else {
				gt["object"] = map[string]any{"turn": g.ObjectTurn}
			}
			if g.ToChannel != "" {
				gt["to"] = map[string]any{"channel": g.ToChannel}
			} else {
				gt["to"] = map[string]any{"principals": g.ToPrincipals}
			}
			if g.RemovedAtTurn != "" {
				gt["removed_at_turn"] = g.RemovedAtTurn
			}
			grants = append(grants, gt)
		}
		out["grants"] = grants
	}
	if len(a.Unresolved) > 0 {
		out["unresolved"] = a.Unresolved
	}
	t := &e.Truth
	if t.Records != nil || t.Requests != nil {
		records := map[string]any{}
		for k, v := range t.Records {
			records[k] = audienceTree(v)
		}
		leaks := []any{}
		for _, l := range t.MustNotLeak {
			leaks = append(leaks, map[string]any{"text": l.Text, "audience": audienceTree(l.Audience)})
		}
		reqs := map[string]any{}
		for k, v := range t.Requests {
			reqs[k] = map[string]any{"true_principal": v.TruePrincipal, "entitled": v.Entitled}
		}
		gt := map[string]any{"scenarios": nonNil(t.Scenarios), "records": records, "must_not_leak": leaks, "requests": reqs}
		if len(t.DecoyTurns) > 0 {
			gt["decoy_turns"] = t.DecoyTurns
		}
		out["ground_truth"] = gt
	}
	return out
}
