package replay

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Artifacts of the bounded event-sourcing condition (docs/FORMATS.md 5.1, 8.2): the immutable
// event log and EAL-Bench's representation metrics. The reduced state of every block is a
// memory artifact like any writer's, so chains, fidelity and trials need nothing new.
const (
	EventLog              = "event_log"
	RepresentationMetrics = "representation_metrics"
	// EventLogSchemaVersion is EAL-Bench's EVENT_LOG_SCHEMA_VERSION (row log_schema_version).
	EventLogSchemaVersion = 1
)

func init() {
	rundir.SchemaVersions[RepresentationMetrics] = 1
}

// eventChainState is one event-sourced chain's reducer and the event-log rows of its
// accepted batches.
type eventChainState struct {
	reducer *eventsource.Reducer
	log     []map[string]any
	// scripted writer only: the case's canonical events and the seeded fault draws.
	canonical map[int][]map[string]any
	rng       *rand.Rand
	// pending are the semantic faults of a rejected first attempt, which its repair keeps.
	pending []rundir.FaultRow
}

func eventState(ch *chainInfo) (*eventChainState, error) {
	if st, ok := ch.writerState.(*eventChainState); ok {
		return st, nil
	}
	r, err := eventsource.ForDomain(ch.domain)
	if err != nil {
		return nil, err
	}
	st := &eventChainState{reducer: r}
	ch.writerState = st
	return st, nil
}

// eventBlock is what one block's batch is built from and checked against.
type eventBlock struct {
	previous    map[string]any
	text        string
	visible     []string
	addressable []string
}

func (st *eventChainState) block(ch *chainInfo, u update) (eventBlock, error) {
	prev, err := st.reducer.VisibleState()
	if err != nil {
		return eventBlock{}, err
	}
	text := ch.domain.RenderBlock(ch.c, u.block)
	visible, addressable := eventsource.BlockContext(st.reducer, prev, ch.c, u.block, text)
	return eventBlock{previous: prev, text: text, visible: visible, addressable: addressable}, nil
}

// reduce checks one attempt's tool arguments and, when the batch is accepted, advances the
// chain's reducer and logs its events. A rejection is an invalid payload with EAL-Bench's
// message; the chain then retains the previous state (runChain).
func (st *eventChainState) reduce(ch *chainInfo, u update, b eventBlock, attemptID string, args any, res attemptResult) attemptResult {
	res.rawArguments = args
	batch, err := eventsource.ValidateBatch(st.reducer, eventsource.BatchInput{
		Arguments: args, VisibleSourceIDs: b.visible, AddressableAuthorizationIDs: b.addressable,
		LogicalUpdateID: u.logicalID, CapacityTokens: ch.domain.CapacityTokens(),
	}, ch.tokens)
	if err != nil {
		res.status, res.detail = StatusInvalid, err.Error()
		return res
	}
	st.reducer = batch.Reducer
	for _, e := range batch.Events {
		row := e.Tree()
		row["log_schema_version"] = EventLogSchemaVersion
		row["domain_id"] = ch.domain.ID()
		row["case_id"] = ch.c.ID
		row["condition_id"] = ch.condition.ID
		row["target_id"] = ch.writer.TargetID
		row["writer_run_id"] = ch.runID
		row["writer_seed"] = ch.seed
		row["chain_id"] = ch.chainID
		row["logical_update_id"] = u.logicalID
		row["block_index"] = u.block
		row["source_attempt_id"] = attemptID
		st.log = append(st.log, row)
	}
	changed := pyjson.MustContentHash(batch.ReducedState) != pyjson.MustContentHash(b.previous)
	res.status, res.detail = StatusAccepted, "accepted event delta"
	res.validated, res.candidate, res.changed = batch.ReducedState, batch.ReducedState, &changed
	return res
}

// Event-writer fault families: what a lifecycle-event extractor gets wrong. Each turns one
// canonical event of a block into a plausible mistake; the first three change what the
// reduced state authorizes, the last is a structural error the writer repairs on its second
// attempt (so a run shows rejected batches and the repair path).
const (
	EventFaultOmitRevoke   = "event_omit_revoke"
	EventFaultKeepNarrowed = "event_keep_narrowed_field"
	EventFaultWidenPatch   = "event_widen_patch"
	EventFaultUnseenSource = "event_unseen_source"
)

// EventFaultFamilies lists the event-writer fault families in draw order.
var EventFaultFamilies = []string{EventFaultOmitRevoke, EventFaultKeepNarrowed, EventFaultWidenPatch, EventFaultUnseenSource}

// ScriptedEventWriter is the built-in event writer: it states each block's canonical
// ledger events (eventsource.CanonicalEvents) except where a seeded fault makes it omit a
// revoke, keep a field a patch narrowed, widen a patch, or cite a source it cannot see.
type ScriptedEventWriter struct {
	FaultRate float64
	Version   string
}

func (w *ScriptedEventWriter) provenance(seed int64) rundir.ModelProvenance {
	return scriptedProvenance(w.FaultRate, EventFaultFamilies, seed)
}

func (w *ScriptedEventWriter) manager() string { return "ealscope_scripted_event_writer_v1" }

// maxAttempts is EAL-Bench's two structural attempts.
func (w *ScriptedEventWriter) maxAttempts() int { return 2 }

func (w *ScriptedEventWriter) attempt(ctx context.Context, ch *chainInfo, u update, current any, attemptID string, index int, failed *attemptResult) (attemptResult, bool) {
	if ctx.Err() != nil {
		return attemptResult{}, false
	}
	st, err := eventState(ch)
	if err != nil {
		return attemptResult{status: StatusWriterError, detail: "ValueError: " + err.Error()}, true
	}
	if st.canonical == nil {
		if st.canonical, err = eventsource.CanonicalEvents(st.reducer.Spec, ch.domain, ch.c); err != nil {
			return attemptResult{status: StatusWriterError, detail: "ValueError: " + err.Error()}, true
		}
		h := pyjson.SHA256Hex([]byte("event-faults\x00" + ch.chainID))
		stream, _ := strconv.ParseUint(h[:16], 16, 64)
		st.rng = rand.New(rand.NewPCG(uint64(ch.seed), stream))
	}
	b, err := st.block(ch, u)
	if err != nil {
		return attemptResult{status: StatusWriterError, detail: "ValidationError: " + err.Error()}, true
	}
	var events []any
	var faults []rundir.FaultRow
	if index > 1 && failed != nil {
		// The repair: the same events, with the structural mistake corrected.
		events = failed.rawArguments.(map[string]any)["events"].([]any)
		if w.draw(st) {
			// The writer repeats its mistake: the update fails and the state is retained.
			st.pending = nil
		} else {
			events = repairUnseenSources(events, b.visible)
			faults, st.pending = st.pending, nil
		}
	} else {
		for i, e := range st.canonical[u.block] {
			ev, fault := w.corrupt(ch, st, u, b, i, e)
			if fault != nil {
				faults = append(faults, *fault)
			}
			if ev != nil {
				events = append(events, ev)
			}
		}
	}
	if events == nil {
		events = []any{}
	}
	args, err := pyjson.Retree(map[string]any{"events": events})
	if err != nil {
		return attemptResult{status: StatusWriterError, detail: "ValueError: " + err.Error()}, true
	}
	res := st.reduce(ch, u, b, attemptID, args, attemptResult{})
	res.faults = faults
	if res.status != StatusAccepted {
		// Only the structural fault belongs to the rejected attempt; the others carry over
		// to the repair, whose memory holds them.
		res.faults, st.pending = nil, nil
		for _, f := range faults {
			if f.Family == EventFaultUnseenSource {
				res.faults = append(res.faults, f)
			} else {
				st.pending = append(st.pending, f)
			}
		}
	}
	return res, true
}

func (w *ScriptedEventWriter) draw(st *eventChainState) bool {
	return w.FaultRate > 0 && st.rng.Float64() < w.FaultRate
}

// corrupt returns the event as the scripted writer states it (nil: omitted) and the fault it
// injected, if any. Opportunities are drawn in a fixed order, one draw per applicable family.
func (w *ScriptedEventWriter) corrupt(ch *chainInfo, st *eventChainState, u update, b eventBlock, index int, canonical map[string]any) (any, *rundir.FaultRow) {
	ev := pyjson.CloneTree(canonical).(map[string]any)
	target, _ := ev["target_authorization_id"].(string)
	fault := func(family, field, desc string) *rundir.FaultRow {
		return &rundir.FaultRow{
			FaultID: pyjson.StableID24("fault", ch.chainID, family, strconv.Itoa(u.block), strconv.Itoa(index), target, field),
			Family:  family, DomainID: ch.domain.ID(), CaseID: ch.c.ID, ConditionID: ch.condition.ID,
			WriterRunID: ch.runID, BlockIndex: u.block, AuthorizationID: target, Field: field,
			Description: desc, SchemaVersion: rundir.SchemaVersions[rundir.Faults],
		}
	}
	switch ev["event_type"] {
	case eventsource.Revoke:
		if w.draw(st) {
			return nil, fault(EventFaultOmitRevoke, engine.RecordField, "the event writer omitted the revoke of "+target)
		}
	case eventsource.Patch:
		changes, _ := ev["changes"].(map[string]any)
		prev := st.reducer.Records[target]
		if field, ok := narrowedField(changes, prev); ok && w.draw(st) {
			deleteChange(changes, field)
			if len(changes) == 0 {
				return nil, fault(EventFaultKeepNarrowed, field, "the event writer dropped the patch of "+target+" that narrowed "+field)
			}
			return ev, fault(EventFaultKeepNarrowed, field, "the event writer kept "+field+" of "+target+" as it was before the patch")
		}
		if field, widened, ok := widenedChange(st.reducer.Spec, changes, prev); ok && w.draw(st) {
			setChange(changes, field, widened)
			return ev, fault(EventFaultWidenPatch, field, "the event writer widened "+field+" of "+target+" beyond the patch")
		}
	}
	if len(b.visible) > 0 && w.draw(st) {
		sources := ev["source_turn_ids"].([]any)
		if s, ok := sources[0].(string); ok {
			sources[0] = unseenSource(s)
			return ev, fault(EventFaultUnseenSource, "source_turn_ids", "the event writer cited "+sources[0].(string)+", a turn it could not see (the second attempt repairs it unless the writer repeats the mistake)")
		}
	}
	return ev, nil
}

// unseenSource is a citation of a turn the writer was never shown: the right id with a
// suffix, the typo a model makes when it reconstructs ids from memory.
func unseenSource(id string) string { return id + "_x" }

func repairUnseenSources(events []any, visible []string) []any {
	ok := map[string]bool{}
	for _, v := range visible {
		ok[v] = true
	}
	out := pyjson.CloneTree(events).([]any)
	for _, e := range out {
		m, _ := e.(map[string]any)
		sources, _ := m["source_turn_ids"].([]any)
		for i, s := range sources {
			if str, isStr := s.(string); isStr && !ok[str] && strings.HasSuffix(str, "_x") && ok[strings.TrimSuffix(str, "_x")] {
				sources[i] = strings.TrimSuffix(str, "_x")
			}
		}
	}
	return out
}

// changedValues flattens a patch's changes to field -> value, scope fields by their own name
// ("scope.vendor" stays "vendor": scope names never collide with record names).
func changedValues(changes map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range changes {
		if sm, ok := v.(map[string]any); ok && k == "scope" {
			for sk, sv := range sm {
				out[sk] = sv
			}
			continue
		}
		out[k] = v
	}
	return out
}

func recordValue(rec map[string]any, field string) (any, bool) {
	if v, ok := rec[field]; ok {
		return v, true
	}
	if scope, ok := rec["scope"].(map[string]any); ok {
		v, ok := scope[field]
		return v, ok
	}
	return nil, false
}

func setChange(changes map[string]any, field string, value any) {
	if _, ok := changes[field]; ok {
		changes[field] = value
		return
	}
	if scope, ok := changes["scope"].(map[string]any); ok {
		scope[field] = value
	}
}

// narrowedField is a changed field (a scope field too: scope is merged shallowly, so leaving
// one out of the patch keeps its old value) whose new value is narrower than the record's: a
// list or " | "-joined string losing items, or a smaller bound.
func narrowedField(changes map[string]any, prev map[string]any) (string, bool) {
	if prev == nil {
		return "", false
	}
	values := changedValues(changes)
	for _, field := range slices.Sorted(maps.Keys(values)) {
		old, ok := recordValue(prev, field)
		if ok && narrower(values[field], old) {
			return field, true
		}
	}
	return "", false
}

// deleteChange removes one field from a patch's changes (an emptied scope goes too).
func deleteChange(changes map[string]any, field string) {
	if _, ok := changes[field]; ok {
		delete(changes, field)
		return
	}
	if scope, ok := changes["scope"].(map[string]any); ok {
		delete(scope, field)
		if len(scope) == 0 {
			delete(changes, "scope")
		}
	}
}

func narrower(newV, oldV any) bool {
	a, aok := itemSet(newV)
	b, bok := itemSet(oldV)
	if aok && bok {
		if len(a) >= len(b) {
			return false
		}
		for k := range a {
			if !b[k] {
				return false
			}
		}
		return true
	}
	na, aok := newV.(interface{ Int64() (int64, error) })
	nb, bok := oldV.(interface{ Int64() (int64, error) })
	if aok && bok {
		x, e1 := na.Int64()
		y, e2 := nb.Int64()
		return e1 == nil && e2 == nil && x < y
	}
	return false
}

// widenedChange widens one narrowing change to the union (lists) or the larger bound of the
// old and new values; it never widens a lower bound (min_* fields) or a time.
func widenedChange(spec engine.EventSourcingSpec, changes map[string]any, prev map[string]any) (string, any, bool) {
	if prev == nil {
		return "", nil, false
	}
	values := changedValues(changes)
	for _, field := range slices.Sorted(maps.Keys(values)) {
		if strings.HasPrefix(field, "min_") || strings.HasPrefix(field, "valid_") {
			continue
		}
		old, ok := recordValue(prev, field)
		if !ok || !narrower(values[field], old) {
			continue
		}
		switch nv := values[field].(type) {
		case []any:
			return field, union(nv, old.([]any), func(x any) string { return fmt.Sprint(x) }), true
		case string:
			sep := " | "
			if spec.SourceIDSeparator != nil {
				sep = *spec.SourceIDSeparator
			}
			return field, strings.Join(union(strings.Split(nv, sep), strings.Split(old.(string), sep), func(s string) string { return s }), sep), true
		default:
			return field, old, true
		}
	}
	return "", nil, false
}

func itemSet(v any) (map[string]bool, bool) {
	out := map[string]bool{}
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			out[fmt.Sprint(x)] = true
		}
		return out, true
	case string:
		if !strings.Contains(t, " | ") {
			return nil, false
		}
		for _, x := range strings.Split(t, " | ") {
			out[x] = true
		}
		return out, true
	}
	return nil, false
}

// union is a then b without repeats, in first-seen order (Python's dict.fromkeys([*a, *b]));
// two elements repeat when their key is the same.
func union[T any](a, b []T, key func(T) string) []T {
	seen := map[string]bool{}
	var out []T
	for _, x := range append(append([]T(nil), a...), b...) {
		if k := key(x); !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}
