package replay

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Turn ablation (docs/CAUSES.md): re-run a chain's writer on the block's input without one
// turn, score the new memory and say whether the failure still forms. A turn whose removal
// stops it is a cause by intervention.
//
// The scripted writer is re-run deterministically with the same coin flips (the fault
// engine's draws are made on the full ledger, so nothing else about the writer changes): a
// record whose ledger events at the turn's block all come from the withheld turn is not
// seen there, so the writer keeps its own earlier version of it and writes none of the faults
// drawn on that transition; a record laundered from the withheld turn is not invented.

// ScriptedParams are the scripted writer's effective parameters for one chain.
type ScriptedParams struct {
	ChainID   string
	Seed      int64
	FaultRate float64
	Families  []string
}

// ScriptedParamsOf reads them from a chain's writer provenance, its chain id and writer
// seed; ok is false when the chain's writer is not the scripted one.
func ScriptedParamsOf(writer rundir.ModelProvenance, chainID string, seed int64) (ScriptedParams, bool, error) {
	if writer.RequestedModel != ScriptedModelID {
		return ScriptedParams{}, false, nil
	}
	p := ScriptedParams{ChainID: chainID, Seed: seed}
	ep := writer.EffectiveParameters
	rate, err := strconv.ParseFloat(fmt.Sprint(ep["fault_rate"]), 64)
	if err != nil {
		return p, true, fmt.Errorf("scripted writer provenance: fault_rate %v: %w", ep["fault_rate"], err)
	}
	p.FaultRate = rate
	fams, _ := ep["faults"].([]any)
	for _, f := range fams {
		s, ok := f.(string)
		if !ok {
			return p, true, fmt.Errorf("scripted writer provenance: faults holds %v", f)
		}
		p.Families = append(p.Families, s)
	}
	return p, true, nil
}

// ScriptedWithout is the scripted writer's memory after block `through` when the turns are
// withheld, and the ledger of that history (the principals' events those turns carried are
// gone too), both as typed records.
func ScriptedWithout(d engine.Domain, c *engine.Case, p ScriptedParams, through int, turns []string) (memory, ledger []engine.Record, err error) {
	withheld := map[string]bool{}
	unseen := map[int]map[string]bool{} // block -> records whose events there all come from withheld turns
	for _, id := range turns {
		t, ok := c.Turn(id)
		if !ok {
			return nil, nil, fmt.Errorf("case %s has no turn %s", c.ID, id)
		}
		if t.BlockIndex > through {
			return nil, nil, fmt.Errorf("turn %s is in block %d, after block %d", id, t.BlockIndex, through)
		}
		withheld[id] = true
		unseen[t.BlockIndex] = nil
	}
	for b := range unseen {
		unseen[b] = unseenRecords(c, b, withheld)
	}
	fe := newFaultEngine(d, c, p.Seed, p.ChainID, p.FaultRate, p.Families)
	written, truth := map[int]map[string]map[string]any{}, map[int]map[string]map[string]any{}
	for b := range unseen {
		if b == 0 {
			written[b], truth[b] = map[string]map[string]any{}, map[string]map[string]any{}
		}
	}
	for b := 0; b < through; b++ {
		if _, ok := unseen[b+1]; !ok {
			continue
		}
		if _, err := fe.advance(b); err != nil {
			return nil, nil, err
		}
		written[b+1] = treesByID(d, fe.memory())
		truth[b+1] = cloneTrees(fe.prev)
	}
	if _, err := fe.advance(through); err != nil {
		return nil, nil, err
	}
	mem, led := cloneTrees(fe.prev), cloneTrees(fe.prev)
	for _, f := range fe.faults {
		if withheld[f.turnID] || unseen[f.eventBlock][f.authID] {
			continue
		}
		applyFault(mem, f)
	}
	for _, b := range slices.Sorted(maps.Keys(unseen)) {
		for id := range unseen[b] {
			if laterEvents(c, id, b, through) {
				continue
			}
			restore(mem, written[b], id)
			restore(led, truth[b], id)
		}
	}
	if memory, err = parseTrees(d, mem); err != nil {
		return nil, nil, err
	}
	ledger, err = parseTrees(d, led)
	return memory, ledger, err
}

// restore puts back the version of record id held before the withheld turn's block (none:
// the record is dropped).
func restore(recs, before map[string]map[string]any, id string) {
	if r, ok := before[id]; ok {
		recs[id] = pyjson.CloneTree(r).(map[string]any)
	} else {
		delete(recs, id)
	}
}

func treesByID(d engine.Domain, list []any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, r := range list {
		m := r.(map[string]any)
		out[recordID(d, m)] = m
	}
	return out
}

func cloneTrees(in map[string]map[string]any) map[string]map[string]any {
	out := make(map[string]map[string]any, len(in))
	for id, r := range in {
		out[id] = pyjson.CloneTree(r).(map[string]any)
	}
	return out
}

func parseTrees(d engine.Domain, recs map[string]map[string]any) ([]engine.Record, error) {
	auths := make([]any, 0, len(recs))
	for _, id := range slices.Sorted(maps.Keys(recs)) {
		auths = append(auths, recs[id])
	}
	return d.ParseTyped(map[string]any{"schema_version": d.TypedSchemaVersion(), "authorizations": auths})
}

// applyFault writes one active fault into the records (a writer's records by id): the faulty
// memory faultEngine.memory returns, and the ablation's re-run of it.
func applyFault(recs map[string]map[string]any, f *activeFault) {
	switch {
	case f.family == FaultExtraRecord, f.field == recordField && f.value != nil:
		recs[f.authID] = pyjson.CloneTree(f.value).(map[string]any)
	case f.family == FaultMissingRecord:
		delete(recs, f.authID)
	default:
		if r, ok := recs[f.authID]; ok {
			engine.SetPath(r, f.field, pyjson.CloneTree(f.value))
		}
	}
}

func recordID(d engine.Domain, m map[string]any) string {
	id, _ := engine.GetPath(m, d.Schema().PathOf(engine.RoleID)).(string)
	return id
}

// unseenRecords are the records whose every ledger event at block b comes from withheld turns.
func unseenRecords(c *engine.Case, b int, withheld map[string]bool) map[string]bool {
	only, other := map[string]bool{}, map[string]bool{}
	for _, e := range c.Events {
		if e.BlockIndex != b {
			continue
		}
		fromTurn := len(e.SourceTurnIDs) > 0
		for _, id := range e.SourceTurnIDs {
			fromTurn = fromTurn && withheld[id]
		}
		for _, id := range []string{e.AuthorizationID, e.NewAuthorizationID} {
			if id == "" {
				continue
			}
			if fromTurn {
				only[id] = true
			} else {
				other[id] = true
			}
		}
	}
	for id := range other {
		delete(only, id)
	}
	return only
}

func laterEvents(c *engine.Case, id string, after, through int) bool {
	for _, e := range c.Events {
		if e.BlockIndex > after && e.BlockIndex <= through && (e.AuthorizationID == id || e.NewAuthorizationID == id) {
			return true
		}
	}
	return false
}

// stillForms says whether the memory authorizes the request that the ledger denies.
func stillForms(d engine.Domain, c *engine.Case, memory, ledger []engine.Record, request any) bool {
	return !engine.Authorizes(d, c, ledger, request).Authorized && engine.Authorizes(d, c, memory, request).Authorized
}

// AblateScripted removes each of the first n ranked turns in turn, re-runs the scripted
// writer and records the outcome on the cause. When the first turn alone does not stop the
// failure and other wrong records grant the request too (the failure is overdetermined), it
// also withholds the first-ranked turn of every such record together and says whether that
// stops it.
func AblateScripted(d engine.Domain, c *engine.Case, p ScriptedParams, block int, request any, a *cause.Attribution, n int) {
	for i := range a.Causes {
		if i >= n {
			break
		}
		a.Causes[i].Ablation = ablateTurns(d, c, p, block, request, []string{a.Causes[i].TurnID})
	}
	if len(a.Causes) == 0 || a.Causes[0].Ablation.Status != cause.AblationStillForms {
		return
	}
	routes, seen := []string{}, map[string]bool{}
	for _, cs := range a.Causes {
		rec := cs.Record
		if rec == "" || seen[rec] {
			continue
		}
		seen[rec] = true
		routes = append(routes, cs.TurnID)
	}
	if len(routes) < 2 {
		return
	}
	joint := ablateTurns(d, c, p, block, request, routes)
	if joint.Status == cause.AblationStillForms {
		granted := map[string]bool{}
		for _, ch := range a.Changes {
			granted[ch.AuthorizationID] = true
		}
		joint.Masked = true
		for _, id := range joint.Granting {
			joint.Masked = joint.Masked && !granted[id]
		}
		if joint.Masked {
			joint.Detail = "without them the scripted writer's memory grants the request through " + strings.Join(joint.Granting, ", ") +
				", an error the written memory masked"
		}
	}
	a.Joint = &cause.JointAblation{TurnIDs: routes, Ablation: *joint}
}

func ablateTurns(d engine.Domain, c *engine.Case, p ScriptedParams, block int, request any, turns []string) *cause.Ablation {
	mem, led, err := ScriptedWithout(d, c, p, block, turns)
	switch {
	case err != nil:
		return &cause.Ablation{Status: cause.AblationNotEstimable, Detail: err.Error()}
	case stillForms(d, c, mem, led, request):
		var granting []string
		for _, r := range mem {
			if d.Deny(c, r, request) == "" {
				granting = append(granting, r.AuthorizationID())
			}
		}
		return &cause.Ablation{Status: cause.AblationStillForms, Granting: granting,
			Detail: "without it the scripted writer's memory still grants the request the ledger denies"}
	}
	return &cause.Ablation{Status: cause.AblationStops, Detail: "without it the scripted writer's memory no longer grants a request the ledger denies"}
}
