package safeguards

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// AudienceBoundID is the lab's id of audience-bound admission.
const AudienceBoundID = "audience_bound"

// AudienceBoundVersion is its rule version.
const AudienceBoundVersion = "audience_bound_v1"

// AudienceBound is audience-bound admission with its defaults (input binding, intersection,
// unresolved viewers to public-only): a memory transformation, no action gate.
func AudienceBound() engine.Policy { return AudienceBoundWith(AudienceParams{}) }

// AudienceBoundWith is audience-bound admission with the given parameters.
func AudienceBoundWith(p AudienceParams) engine.Policy {
	p = p.normal()
	return engine.Policy{
		ID: AudienceBoundID, Version: AudienceBoundVersion,
		Description: "audience-bound admission: a memory item enters the context only when every viewer of the request belongs to " +
			"an audience it may reach (the intersection of its sources' audiences, or an explicit grant in force)",
		Memory: audienceTransform{p: p},
	}
}

type audienceTransform struct{ p AudienceParams }

// TransformMemory admits the items of a memory for the request's viewers. Without an audience
// sidecar, or without a request to assemble a context for, the policy does not apply.
func (t audienceTransform) TransformMemory(in engine.MemoryInput) (engine.GatedMemory, error) {
	rules, ok := in.Domain.(engine.AudienceRules)
	switch {
	case !ok:
		return engine.GatedMemory{}, fmt.Errorf("%w: domain %s has no audience role", engine.ErrNotApplicable, in.Domain.ID())
	case !rules.HasAudience(in.Case):
		return engine.GatedMemory{}, fmt.Errorf("%w: case %s has no audience sidecar", engine.ErrNotApplicable, in.Case.ID)
	case in.Request == nil:
		return engine.GatedMemory{}, fmt.Errorf("%w: audience admission needs a request's viewers (ealscope safeguards --policy audience_bound measures it per request)", engine.ErrNotApplicable)
	case in.Evidence.Kind != engine.MemoryEvidence:
		return engine.GatedMemory{}, fmt.Errorf("%w: the executor is shown no memory", engine.ErrNotApplicable)
	}
	viewers := rules.RequestViewers(in.Case, *in.Request)
	items, records, text, err := audienceItems(in, t.p.Binding)
	if err != nil {
		return engine.GatedMemory{}, err
	}
	decisions := AdmitItems(rules, in.Case, in.Block, viewers, items, t.p)
	g := engine.GatedMemory{Evidence: in.Evidence}
	var kept []engine.Record
	for i, d := range decisions {
		reason := d.Reason + " audience=" + authorizedText(d) + " viewers=" + viewerText(viewers)
		g.Records = append(g.Records, engine.RecordDecision{AuthorizationID: d.ID, Kept: d.Kept, Reasons: []string{reason}, Sources: d.Sources})
		if d.Kept && records != nil {
			kept = append(kept, records[i])
		}
	}
	switch {
	case text && records == nil:
		if !decisions[0].Kept {
			g.Evidence.Payload = ""
		}
	case text:
		g.Evidence.Payload = in.Domain.FaithfulText(kept)
	default:
		g.Evidence.Payload = in.Domain.TypedPayload(kept)
	}
	return g, nil
}

// authorizedText is an item's authorized audiences: its own, then each grant's in force
// ("{a, b} | {a, b, c}"); its own alone when it failed before grants were read.
func authorizedText(d ItemDecision) string {
	if len(d.Authorized) == 0 {
		return d.Audience.String()
	}
	parts := make([]string, len(d.Authorized))
	for i, a := range d.Authorized {
		parts[i] = a.String()
	}
	return strings.Join(parts, " | ")
}

func viewerText(v engine.Viewers) string {
	if v.Unresolved != "" {
		return "unresolved(" + v.Unresolved + ")"
	}
	return engine.Audience{Principals: v.Principals}.String()
}

// audienceItems reads a memory's items: typed records, or the canonical free-text layout's
// records, each with its sources under the binding; other free text is one item over the
// whole input. records is nil for such free text.
func audienceItems(in engine.MemoryInput, binding string) (items []AudienceItem, records []engine.Record, text bool, err error) {
	sa, _ := in.Domain.(engine.SourceAuthorityRules)
	if s, ok := in.Evidence.Payload.(string); ok {
		text = true
		if records, err = in.Domain.ReadFreeText(s); err != nil {
			return []AudienceItem{{ID: "free_text", Sources: inputTurns(in.Case, in.Block), FreeText: true}}, nil, true, nil
		}
	} else {
		if records, err = parseTypedLenient(in.Domain, in.Evidence.Payload); err != nil {
			return nil, nil, false, fmt.Errorf("typed memory: %w", err)
		}
	}
	var keys []map[string]string
	if binding != BindingCited {
		keys = versionKeys(in)
	}
	for _, r := range records {
		it := AudienceItem{ID: r.AuthorizationID()}
		switch {
		case binding == BindingCited && sa != nil:
			it.Sources = sa.RecordCitations(r)
		case binding == BindingCited:
			it.Sources = nil
		default:
			it.Sources = inputTurns(in.Case, lastChanged(in, keys, r))
		}
		items = append(items, it)
	}
	if records == nil {
		records = []engine.Record{}
	}
	return items, records, text, nil
}

// parseTypedLenient parses a typed payload, retrying once through JSON for a tree built in Go.
func parseTypedLenient(d engine.Domain, payload any) ([]engine.Record, error) {
	recs, err := d.ParseTyped(payload)
	if err == nil {
		return recs, nil
	}
	tree, terr := pyjson.Retree(payload)
	if terr != nil {
		return nil, err
	}
	return d.ParseTyped(tree)
}

// inputTurns are the turns of blocks 0..through: the writer's input at a block is its block
// and a memory made from every block before it, so an item changed there is derived from all
// of them (the writer cannot choose its sources).
func inputTurns(c *engine.Case, through int) []string {
	var out []string
	for _, b := range c.Blocks {
		if b.Index > through {
			break
		}
		for _, t := range b.Turns {
			out = append(out, t.ID)
		}
	}
	return out
}

// versionKeys reads every version of the chain once: per version, each record's key.
func versionKeys(in engine.MemoryInput) []map[string]string {
	out := make([]map[string]string, len(in.Versions))
	for i, v := range in.Versions {
		var recs []engine.Record
		if s, ok := v.Evidence.Payload.(string); ok {
			recs, _ = in.Domain.ReadFreeText(s)
		} else {
			recs, _ = parseTypedLenient(in.Domain, v.Evidence.Payload)
		}
		out[i] = map[string]string{}
		for _, r := range recs {
			out[i][r.AuthorizationID()] = recordKey(in.Domain, r)
		}
	}
	return out
}

// lastChanged is the block at which a record last took its present form in the chain (the
// memory's own block without versions): the earliest of the latest run of versions that
// hold it unchanged.
func lastChanged(in engine.MemoryInput, keys []map[string]string, r engine.Record) int {
	key := recordKey(in.Domain, r)
	block := in.Block
	for i := len(in.Versions) - 1; i >= 0; i-- {
		if in.Versions[i].Block > in.Block {
			continue
		}
		if keys[i][r.AuthorizationID()] != key {
			break
		}
		block = in.Versions[i].Block
	}
	return block
}

func recordKey(d engine.Domain, r engine.Record) string {
	b, err := json.Marshal(d.TypedPayload([]engine.Record{r}))
	if err != nil {
		return r.AuthorizationID()
	}
	return string(b)
}

// MemoryItems are the items audience-bound admission reads off a memory under a binding (the
// lab's ground truth judges the same items).
func MemoryItems(in engine.MemoryInput, binding string) ([]AudienceItem, error) {
	items, _, _, err := audienceItems(in, binding)
	return items, err
}
