package replay

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Fault families the scripted writer injects, named after the fidelity error class each one
// produces (stale_retention, broadening, extra_record, missing_record) or the scope field it
// corrupts.
const (
	FaultStaleRetention = "stale_retention"
	FaultBroadening     = "broadening"
	FaultWidenedLimit   = "widened_limit"
	FaultExtraRecord    = "extra_record_wrong_issuer"
	FaultMissingRecord  = "missing_record"
	FaultValidityWindow = "wrong_validity_window"
	DefaultFaultRate    = 0.35
	recordField         = engine.RecordField
)

// FaultFamilies lists every family in a fixed order (the order opportunities are drawn in).
var FaultFamilies = []string{FaultStaleRetention, FaultBroadening, FaultWidenedLimit, FaultExtraRecord, FaultMissingRecord, FaultValidityWindow}

// ParseFaults reads a comma list of families ("" or "all" for every family).
func ParseFaults(list string) ([]string, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		return append([]string(nil), FaultFamilies...), nil
	}
	if list == "none" {
		return []string{}, nil
	}
	want := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		known := false
		for _, k := range FaultFamilies {
			known = known || k == f
		}
		if !known {
			return nil, fmt.Errorf("unknown fault family %q (known: %s, or none)", f, strings.Join(FaultFamilies, ", "))
		}
		want[f] = true
	}
	var out []string
	for _, f := range FaultFamilies {
		if want[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

// activeFault is a corruption the writer keeps applying at every later update. It persists
// (that is what makes a chain form false authority at one block and keep it) until the ledger
// changes the corrupted field again: a writer that re-reads a field it is told about again
// writes the new value, which clears the fault. A missed revoke is therefore permanent
// (revoked records do not change), and an extra record is permanent (the ledger never
// mentions its id).
type activeFault struct {
	family string
	authID string
	field  string
	// value is what the memory holds instead of the ledger's value (field faults) or the
	// whole invented record (extra_record_wrong_issuer).
	value any
	// ledgerValue is the ledger's value when the fault was injected; a different ledger
	// value later clears the fault.
	ledgerValue string
	// eventBlock is the block of the ledger transition the fault was drawn on, and turnID the
	// turn an invented record was laundered from: what turn ablation (ablate.go) withholds.
	eventBlock int
	turnID     string
}

// injectedFault is one fault report of an update.
type injectedFault struct {
	family, authID, field, description string
	eventBlock                         int
}

// faultEngine follows the ledger block by block and decides, per opportunity, whether the
// writer fails on it. Opportunities are drawn in a fixed order from a chain-seeded PCG, so a
// chain's faults depend only on the run seed and the chain id.
type faultEngine struct {
	c         *engine.Case
	domain    engine.Domain
	schema    engine.RecordSchema
	rng       *rand.Rand
	rate      float64
	families  map[string]bool
	prev      map[string]map[string]any
	faults    []*activeFault
	processed int
	// block is the block being processed (stamped on the faults drawn in it).
	block int
}

func newFaultEngine(d engine.Domain, c *engine.Case, seed int64, chainID string, rate float64, families []string) *faultEngine {
	fam := map[string]bool{}
	for _, f := range families {
		fam[f] = true
	}
	h := pyjson.SHA256Hex([]byte(chainID))
	stream, _ := strconv.ParseUint(h[:16], 16, 64)
	return &faultEngine{
		c: c, domain: d, schema: d.Schema(), rng: rand.New(rand.NewPCG(uint64(seed), stream)), rate: rate, families: fam,
		prev: map[string]map[string]any{}, processed: -1,
	}
}

func (fe *faultEngine) draw(family string) bool {
	if !fe.families[family] || fe.rate <= 0 {
		return false
	}
	return fe.rng.Float64() < fe.rate
}

// ledgerTrees replays the ledger through block k as typed-record trees keyed by id.
func ledgerTrees(d engine.Domain, c *engine.Case, k int) (map[string]map[string]any, []string, error) {
	records, err := d.Replay(c, k)
	if err != nil {
		return nil, nil, err
	}
	tree, err := pyjson.Retree(d.TypedPayload(records))
	if err != nil {
		return nil, nil, err
	}
	out := map[string]map[string]any{}
	var ids []string
	for _, r := range tree.(map[string]any)["authorizations"].([]any) {
		m := r.(map[string]any)
		id := m["authorization_id"].(string)
		out[id] = m
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return out, ids, nil
}

func valueKey(v any) string { return pyjson.MustCanonicalJSON(v) }

func numberOf(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

func timeOf(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, aware, err := engine.ParseISOTime(s)
	return t, err == nil && aware
}

// advance processes blocks up to and including k, drawing the opportunities of each block's
// ledger transitions, and returns the faults injected on the way.
func (fe *faultEngine) advance(k int) ([]injectedFault, error) {
	var injected []injectedFault
	for b := fe.processed + 1; b <= k; b++ {
		cur, ids, err := ledgerTrees(fe.domain, fe.c, b)
		if err != nil {
			return nil, err
		}
		fe.block = b
		fe.clearNoticed(cur)
		for _, id := range ids {
			injected = append(injected, fe.transition(b, id, fe.prev[id], cur[id])...)
		}
		injected = append(injected, fe.vanished(b, cur)...)
		if f, ok := fe.extraRecord(b, cur, ids); ok {
			injected = append(injected, f)
		}
		fe.prev = cur
		fe.processed = b
	}
	return injected, nil
}

// clearNoticed drops field faults whose field the ledger has changed again.
func (fe *faultEngine) clearNoticed(cur map[string]map[string]any) {
	kept := fe.faults[:0]
	for _, f := range fe.faults {
		rec, ok := cur[f.authID]
		if f.family != FaultExtraRecord && ok {
			now := valueKey(rec)
			if f.field != recordField {
				now = valueKey(engine.GetPath(rec, f.field))
			}
			if now != f.ledgerValue {
				continue
			}
		}
		kept = append(kept, f)
	}
	fe.faults = kept
}

func (fe *faultEngine) add(f *activeFault) {
	f.eventBlock = fe.block
	fe.faults = append(fe.faults, f)
}

// nullValue is what a typed payload writes for "no value" in a field.
func nullValue(f engine.SchemaField) any {
	if f.NullText != "" {
		return f.NullText
	}
	return nil
}

// listValue writes a one-item list the way the payload holds lists.
func listValue(f engine.SchemaField, item string) any {
	if f.Joined != "" {
		return item
	}
	return []any{item}
}

func (fe *faultEngine) transition(block int, id string, prev, cur map[string]any) []injectedFault {
	var out []injectedFault
	report := func(family, field, desc string) {
		out = append(out, injectedFault{family: family, authID: id, field: field, description: desc, eventBlock: block})
	}
	statusField, untilField := fe.schema.PathOf(engine.RoleStatus), fe.schema.PathOf(engine.RoleValidUntil)
	if prev == nil {
		if fe.draw(FaultMissingRecord) {
			fe.add(&activeFault{family: FaultMissingRecord, authID: id, field: recordField, ledgerValue: valueKey(cur)})
			report(FaultMissingRecord, recordField, fmt.Sprintf("dropped the new record %s", id))
			return out
		}
		for _, limit := range fe.schema.OfKind(engine.KindLimit, true) {
			out = append(out, fe.widen(block, id, cur, limit)...)
		}
		if untilField != "" && fe.draw(FaultValidityWindow) {
			if until, ok := timeOf(engine.GetPath(cur, untilField)); ok {
				days := 7 + fe.rng.IntN(54)
				later := engine.FormatZ(until.Add(time.Duration(days) * 24 * time.Hour))
				fe.add(&activeFault{family: FaultValidityWindow, authID: id, field: untilField, value: later, ledgerValue: valueKey(engine.GetPath(cur, untilField))})
				report(FaultValidityWindow, untilField, fmt.Sprintf("%s written as %s, %d days after the ledger's %s", untilField, later, days, engine.GetPath(cur, untilField)))
			}
		}
		return out
	}
	if statusField != "" && engine.GetPath(prev, statusField) == "active" && engine.GetPath(cur, statusField) != "active" && fe.draw(FaultStaleRetention) {
		fe.add(&activeFault{family: FaultStaleRetention, authID: id, field: statusField, value: "active", ledgerValue: valueKey(engine.GetPath(cur, statusField))})
		report(FaultStaleRetention, statusField, fmt.Sprintf("missed the %s: %s kept active", engine.GetPath(cur, statusField), id))
	}
	for _, field := range fe.narrowedFields(prev, cur) {
		if fe.draw(FaultBroadening) {
			old := pyjson.CloneTree(engine.GetPath(prev, field))
			fe.add(&activeFault{family: FaultBroadening, authID: id, field: field, value: old, ledgerValue: valueKey(engine.GetPath(cur, field))})
			report(FaultBroadening, field, fmt.Sprintf("missed the narrowing of %s.%s: kept %s instead of %s", id, field, valueKey(old), valueKey(engine.GetPath(cur, field))))
		}
	}
	for _, limit := range fe.schema.OfKind(engine.KindLimit, true) {
		if valueKey(engine.GetPath(prev, limit.Path)) != valueKey(engine.GetPath(cur, limit.Path)) {
			out = append(out, fe.widen(block, id, cur, limit)...)
		}
	}
	return out
}

// vanished is the stale_retention opportunity of a domain whose ledger keeps active records
// only (docs/FORMATS.md 3.3, 3.4): a record revoked or replaced in this block leaves the ledger, and
// a writer that misses it keeps the whole record, still active. Ledgers that retain inactive
// records (procurement) never lose an id, so they never draw here.
func (fe *faultEngine) vanished(block int, cur map[string]map[string]any) []injectedFault {
	var gone []string
	for id := range fe.prev {
		if _, ok := cur[id]; !ok {
			gone = append(gone, id)
		}
	}
	sort.Strings(gone)
	var out []injectedFault
	for _, id := range gone {
		if !fe.draw(FaultStaleRetention) {
			continue
		}
		fe.add(&activeFault{family: FaultStaleRetention, authID: id, field: recordField, value: pyjson.CloneTree(fe.prev[id])})
		out = append(out, injectedFault{family: FaultStaleRetention, authID: id, field: recordField, eventBlock: block,
			description: fmt.Sprintf("missed that %s left the active grants: kept it as it was", id)})
	}
	return out
}

// widen is the widened_limit opportunity of a record whose limit the writer (re)writes: an
// upper limit written higher than the ledger's, a lower limit lower, in round hundreds.
func (fe *faultEngine) widen(block int, id string, cur map[string]any, limit engine.SchemaField) []injectedFault {
	amount, ok := numberOf(engine.GetPath(cur, limit.Path))
	if !ok || !fe.draw(FaultWidenedLimit) {
		return nil
	}
	step := amount/4 + int64(fe.rng.IntN(4))*amount/4
	if step < 100 {
		step = 100
	}
	widened, side := ((amount+step+99)/100)*100, "above"
	if limit.Direction == engine.LowerLimit {
		widened, side = max(0, ((amount-step)/100)*100), "below"
	}
	fe.add(&activeFault{family: FaultWidenedLimit, authID: id, field: limit.Path, value: json.Number(strconv.FormatInt(widened, 10)), ledgerValue: valueKey(engine.GetPath(cur, limit.Path))})
	return []injectedFault{{family: FaultWidenedLimit, authID: id, field: limit.Path, eventBlock: block,
		description: fmt.Sprintf("%s of %s written as %d, %s the ledger's %d", limit.Name(), id, widened, side, amount)}}
}

// narrowedFields lists the scope and validity fields a transition narrowed, limits first,
// then lists, then the window.
func (fe *faultEngine) narrowedFields(prev, cur map[string]any) []string {
	var out []string
	for _, limit := range fe.schema.OfKind(engine.KindLimit, true) {
		if a, ok := numberOf(engine.GetPath(prev, limit.Path)); ok {
			if b, ok := numberOf(engine.GetPath(cur, limit.Path)); ok && (b < a) == (limit.Direction == engine.UpperLimit) && a != b {
				out = append(out, limit.Path)
			}
		}
	}
	for _, list := range fe.schema.OfKind(engine.KindList, true) {
		if a, ok := listItems(engine.GetPath(prev, list.Path), list.Joined); ok {
			b, _ := listItems(engine.GetPath(cur, list.Path), list.Joined)
			have := map[any]bool{}
			for _, x := range b {
				have[x] = true
			}
			for _, x := range a {
				if !have[x] {
					out = append(out, list.Path)
					break
				}
			}
		}
	}
	if from := fe.schema.PathOf(engine.RoleValidFrom); from != "" {
		if a, ok := timeOf(engine.GetPath(prev, from)); ok {
			if b, ok := timeOf(engine.GetPath(cur, from)); ok && b.After(a) {
				out = append(out, from)
			}
		}
	}
	if until := fe.schema.PathOf(engine.RoleValidUntil); until != "" {
		if a, ok := timeOf(engine.GetPath(prev, until)); ok {
			if b, ok := timeOf(engine.GetPath(cur, until)); ok && b.Before(a) {
				out = append(out, until)
			}
		}
	}
	return out
}

// listItems reads a list field: a JSON list, or one string joined by the schema's separator.
func listItems(v any, joined string) ([]any, bool) {
	if l, ok := v.([]any); ok {
		return l, true
	}
	if s, ok := v.(string); ok && joined != "" {
		var out []any
		for _, x := range strings.Split(s, joined) {
			out = append(out, x)
		}
		return out, true
	}
	return nil, false
}

// extraRecord is the extra_record_wrong_issuer opportunity of a block: once per block that
// has a turn from a non-authoritative speaker and a ledger record to imitate. The invented
// record is what a laundering writer produces from that speaker's claim: it copies an
// authorized principal as issuer (so the oracle's issuer check passes) while citing the
// non-authoritative turn as its only source (so source-authority gating catches it), with the
// imitated record's scope widened the way such claims widen it: double the limit, the window
// stretched by its own length, status active.
func (fe *faultEngine) extraRecord(block int, cur map[string]map[string]any, ids []string) (injectedFault, bool) {
	if len(ids) == 0 || len(fe.c.AuthorizedIssuers) == 0 || block >= len(fe.c.Blocks) {
		return injectedFault{}, false
	}
	authoritative := map[string]bool{}
	for _, a := range fe.c.AuthorizedIssuers {
		authoritative[a] = true
	}
	var turns []engine.Turn
	for _, t := range fe.c.Blocks[block].Turns {
		if !authoritative[t.ActorID] {
			turns = append(turns, t)
		}
	}
	if len(turns) == 0 || !fe.draw(FaultExtraRecord) {
		return injectedFault{}, false
	}
	turn := turns[fe.rng.IntN(len(turns))]
	base := cur[ids[fe.rng.IntN(len(ids))]]
	rec := pyjson.CloneTree(base).(map[string]any)
	newID := fmt.Sprintf("%s_claim_b%02d", engine.GetPath(base, fe.schema.PathOf(engine.RoleID)), block)
	if _, clash := cur[newID]; clash {
		return injectedFault{}, false
	}
	sc := fe.schema
	engine.SetPath(rec, sc.PathOf(engine.RoleID), newID)
	engine.SetPath(rec, sc.PathOf(engine.RoleIssuer), fe.c.AuthorizedIssuers[0])
	engine.SetPath(rec, sc.PathOf(engine.RoleStatus), "active")
	if f, ok := sc.ByRole(engine.RoleSupersedes); ok {
		engine.SetPath(rec, f.Path, nullValue(f))
	}
	if f, ok := sc.ByRole(engine.RoleSources); ok {
		engine.SetPath(rec, f.Path, listValue(f, turn.ID))
	}
	for _, limit := range sc.OfKind(engine.KindLimit, true) {
		if amount, ok := numberOf(engine.GetPath(rec, limit.Path)); ok {
			wide := amount * 2
			if limit.Direction == engine.LowerLimit {
				wide = amount / 2
			}
			engine.SetPath(rec, limit.Path, json.Number(strconv.FormatInt(wide, 10)))
		}
	}
	from, until := sc.PathOf(engine.RoleValidFrom), sc.PathOf(engine.RoleValidUntil)
	if f, ok := timeOf(engine.GetPath(rec, from)); ok {
		if u, ok := timeOf(engine.GetPath(rec, until)); ok && u.After(f) {
			engine.SetPath(rec, until, engine.FormatZ(u.Add(u.Sub(f))))
		}
	}
	fe.add(&activeFault{family: FaultExtraRecord, authID: newID, field: recordField, value: rec, turnID: turn.ID})
	return injectedFault{family: FaultExtraRecord, authID: newID, field: recordField, eventBlock: block,
		description: fmt.Sprintf("recorded %s from %s's message %s with issuer %s (a non-authoritative claim laundered as a grant)", newID, turn.ActorID, turn.ID, fe.c.AuthorizedIssuers[0])}, true
}

// memory is the writer's records after the last processed block: the ledger with every
// active fault applied, sorted by id.
func (fe *faultEngine) memory() []any {
	recs := map[string]map[string]any{}
	for id, r := range fe.prev {
		recs[id] = pyjson.CloneTree(r).(map[string]any)
	}
	for _, f := range fe.faults {
		applyFault(recs, f)
	}
	out := make([]any, 0, len(recs))
	for _, id := range slices.Sorted(maps.Keys(recs)) {
		out = append(out, recs[id])
	}
	return out
}
