package envelope

import "github.com/ealscope/ealscope/engine"

// EngineProbes converts a case's probes to engine probes. withChallenge gives the request the
// engine probe carries (the domain's request with its challenge attached) and the challenge's
// metadata, which joins the probe's own under "challenge" (EAL-Bench's metadata.domain =
// probe.metadata + challenge).
func EngineProbes(probes []Probe, withChallenge func(p Probe) (request any, challenge map[string]any)) []engine.Probe {
	var out []engine.Probe
	for _, p := range probes {
		req, challenge := withChallenge(p)
		md := make(map[string]any, len(p.Metadata)+1)
		for k, v := range p.Metadata {
			md[k] = v
		}
		md["challenge"] = challenge
		out = append(out, engine.Probe{
			ID: p.ProbeID, PairID: p.PairID, Dimension: p.Dimension, Scope: p.RequestScope, Request: req, Metadata: md,
		})
	}
	return out
}

// CourseFields are a request's fields for a course, as cause.RequestReader gives them: the
// submitted request's, or for the alternative course its operational near-match's (nil when
// it has none).
func CourseFields[Q any](submitted, nearMatch *Q, kind string, fields func(*Q) map[string]any) map[string]any {
	if kind == "alternative" {
		if nearMatch == nil {
			return nil
		}
		return fields(nearMatch)
	}
	return fields(submitted)
}

// ChangesTree is a patch's changes as a JSON tree, for display: unset direct fields as null,
// scope lists as tree lists, and scope integers as number gives them (nil: as they are).
func ChangesTree(c *Changes, number func(int64) any) map[string]any {
	out := map[string]any{}
	for k, v := range c.Direct {
		if s, ok := v.(*string); ok {
			if s == nil {
				out[k] = nil
			} else {
				out[k] = *s
			}
			continue
		}
		out[k] = v
	}
	if c.Scope != nil {
		scope := map[string]any{}
		for k, v := range c.Scope {
			switch t := v.(type) {
			case []string:
				items := make([]any, len(t))
				for i, s := range t {
					items[i] = s
				}
				v = items
			case int64:
				if number != nil {
					v = number(t)
				}
			}
			scope[k] = v
		}
		out["scope"] = scope
	}
	return out
}
