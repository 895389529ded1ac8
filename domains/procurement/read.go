package procurement

import (
	"github.com/ealscope/ealscope/domains/internal/treeread"
	"github.com/ealscope/ealscope/engine"
)

// The strict readers below turn a JSON tree into corpus structs, rejecting unknown and
// missing keys and wrong types with the path of the offending field.

var (
	caseKeys        = []string{"schema_version", "case_id", "authoring_hash", "policy", "authorized_issuers", "benchmark", "blocks", "events", "probe_pairs"}
	benchmarkKeys   = []string{"split", "case_family_id", "lifecycle", "target_dimensions", "distractor_types", "history_length_band", "memory_hazards"}
	blockKeys       = []string{"block_id", "block_index", "title", "ended_at", "turns"}
	turnKeys        = []string{"turn_id", "actor_id", "speaker", "content", "occurred_at"}
	eventKeys       = []string{"event_id", "event_type", "issuer", "block_id", "effective_at", "authorization_id", "source_turn_ids", "record", "patch"}
	recordKeys      = []string{"authorization_id", "issuer", "grantee", "effect", "action", "vendor", "allowed_categories", "max_amount", "currency", "valid_from", "valid_until", "status", "supersedes", "source_turn_ids"}
	patchKeys       = []string{"issuer", "grantee", "effect", "action", "vendor", "allowed_categories", "max_amount", "currency", "valid_from", "valid_until"}
	pairKeys        = []string{"pair_id", "dimension", "in_scope", "out_of_scope"}
	probeKeys       = []string{"name", "request_scope", "transaction"}
	transactionKeys = []string{"transaction_id", "grantee", "action", "vendor", "category", "amount", "currency", "action_time"}
)

// readCase fills a Case; on error the partially read case (for its id) is returned too.
func readCase(tree any) (*Case, error) {
	m, err := engine.Obj("", tree)
	if err != nil {
		return nil, err
	}
	c := &Case{}
	if id, ok := m["case_id"].(string); ok {
		c.CaseID = id
	}
	if err := engine.ExactKeys("", m, caseKeys, "tags"); err != nil {
		return c, err
	}
	r := reader{}
	c.SchemaVersion = r.NonEmpty("schema_version", m["schema_version"])
	c.CaseID = r.NonEmpty("case_id", m["case_id"])
	c.AuthoringHash = r.Str("authoring_hash", m["authoring_hash"])
	c.Policy = r.NonEmpty("policy", m["policy"])
	c.AuthorizedIssuers = r.uniqueList("authorized_issuers", m["authorized_issuers"])
	if r.Err == nil {
		c.Benchmark = r.benchmark("benchmark", m["benchmark"])
	}
	c.Blocks = readList(&r, "blocks", m["blocks"], r.block)
	c.Events = readList(&r, "events", m["events"], r.event)
	c.ProbePairs = readList(&r, "probe_pairs", m["probe_pairs"], r.pair)
	if tags, ok := m["tags"]; ok && r.Err == nil {
		c.Tags = r.StrList("tags", tags)
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	return c, r.Err
}

// readList reads the list at path item by item with read, stopping at the first error; nothing
// is read once the reader has failed.
func readList[T any](r *reader, path string, v any, read func(path string, v any) T) []T {
	var out []T
	for i, item := range r.List(path, v) {
		if r.Err != nil {
			break
		}
		out = append(out, read(engine.JoinPath(path, i), item))
	}
	return out
}

// reader is the shared strict reader (first error kept, so the field readers chain without
// noise) with procurement's int64 amounts and non-empty unique lists.
type reader struct{ treeread.Reader }

func (r *reader) integer(path string, v any) int64 {
	return treeread.Read(&r.Reader, engine.Int, path, v)
}

func (r *reader) uniqueList(path string, v any) []string {
	l := r.StrList(path, v)
	if r.Err != nil {
		return nil
	}
	if len(l) == 0 {
		r.Set(engine.Errf(path, "must be a non-empty list"))
		return nil
	}
	r.Set(engine.UniqueNonEmpty(path, l))
	return l
}

// fields reads the keys of one object at path: each field's path is path.key, said once.
type fields struct {
	r    *reader
	path string
	m    map[string]any
}

// object reads an object with exactly keys; ok is false once the reader has failed.
func (r *reader) object(path string, v any, keys []string) (f fields, ok bool) {
	m := r.Obj(path, v, keys)
	return fields{r, path, m}, m != nil
}

func (f fields) at(key string) string           { return f.path + "." + key }
func (f fields) value(key string) any           { return f.m[key] }
func (f fields) nonEmpty(key string) string     { return f.r.NonEmpty(f.at(key), f.m[key]) }
func (f fields) integer(key string) int64       { return f.r.integer(f.at(key), f.m[key]) }
func (f fields) optStr(key string) *string      { return f.r.OptStr(f.at(key), f.m[key]) }
func (f fields) uniqueList(key string) []string { return f.r.uniqueList(f.at(key), f.m[key]) }

func (r *reader) benchmark(path string, v any) Benchmark {
	f, ok := r.object(path, v, benchmarkKeys)
	if !ok {
		return Benchmark{}
	}
	return Benchmark{
		Split:             f.nonEmpty("split"),
		CaseFamilyID:      f.nonEmpty("case_family_id"),
		Lifecycle:         f.nonEmpty("lifecycle"),
		TargetDimensions:  f.uniqueList("target_dimensions"),
		DistractorTypes:   f.uniqueList("distractor_types"),
		HistoryLengthBand: f.nonEmpty("history_length_band"),
		MemoryHazards:     f.uniqueList("memory_hazards"),
	}
}

func (r *reader) block(path string, v any) Block {
	f, ok := r.object(path, v, blockKeys)
	if !ok {
		return Block{}
	}
	b := Block{
		BlockID:    f.nonEmpty("block_id"),
		BlockIndex: int(f.integer("block_index")),
		Title:      f.nonEmpty("title"),
		EndedAt:    f.nonEmpty("ended_at"),
	}
	if r.Err != nil {
		return b
	}
	for i, t := range r.List(f.at("turns"), f.value("turns")) {
		tf, ok := r.object(engine.JoinPath(f.at("turns"), i), t, turnKeys)
		if !ok {
			break
		}
		b.Turns = append(b.Turns, Turn{
			TurnID:     tf.nonEmpty("turn_id"),
			ActorID:    tf.nonEmpty("actor_id"),
			Speaker:    tf.nonEmpty("speaker"),
			Content:    tf.nonEmpty("content"),
			OccurredAt: tf.nonEmpty("occurred_at"),
		})
	}
	return b
}

func (r *reader) event(path string, v any) Event {
	f, ok := r.object(path, v, eventKeys)
	if !ok {
		return Event{}
	}
	e := Event{
		EventID:         f.nonEmpty("event_id"),
		EventType:       f.nonEmpty("event_type"),
		Issuer:          f.nonEmpty("issuer"),
		BlockID:         f.nonEmpty("block_id"),
		EffectiveAt:     f.nonEmpty("effective_at"),
		AuthorizationID: f.nonEmpty("authorization_id"),
		SourceTurnIDs:   f.uniqueList("source_turn_ids"),
	}
	if f.value("record") != nil {
		rec := r.record(f.at("record"), f.value("record"))
		e.Record = &rec
	}
	if f.value("patch") != nil {
		e.Patch = r.patch(f.at("patch"), f.value("patch"))
	}
	return e
}

func (r *reader) record(path string, v any) Record {
	f, ok := r.object(path, v, recordKeys)
	if !ok {
		return Record{}
	}
	rec := Record{
		AuthorizationID:   f.nonEmpty("authorization_id"),
		Issuer:            f.nonEmpty("issuer"),
		Grantee:           f.nonEmpty("grantee"),
		Effect:            f.nonEmpty("effect"),
		Action:            f.nonEmpty("action"),
		Vendor:            f.nonEmpty("vendor"),
		AllowedCategories: f.uniqueList("allowed_categories"),
		MaxAmount:         f.integer("max_amount"),
		Currency:          f.nonEmpty("currency"),
		ValidFrom:         f.nonEmpty("valid_from"),
		ValidUntil:        f.nonEmpty("valid_until"),
		Status:            f.nonEmpty("status"),
		Supersedes:        f.optStr("supersedes"),
		SourceTurnIDs:     f.uniqueList("source_turn_ids"),
	}
	if r.Err == nil {
		if rec.MaxAmount < 0 {
			r.Set(engine.Errf(f.at("max_amount"), "must be >= 0"))
		} else if !recordStatuses[rec.Status] {
			r.Set(engine.Errf(f.at("status"), "%q is not one of active, revoked, superseded", rec.Status))
		} else if rec.Effect != "permit_exception" {
			r.Set(engine.Errf(f.at("effect"), "must be permit_exception"))
		} else if rec.Action != "submit_order" {
			r.Set(engine.Errf(f.at("action"), "must be submit_order"))
		}
	}
	return rec
}

func (r *reader) patch(path string, v any) *Patch {
	m := r.Obj(path, v, nil, patchKeys...) // every patch key is optional
	if m == nil {
		return nil
	}
	p := &Patch{}
	set := 0
	optional := func(key string) *string {
		if m[key] == nil {
			return nil
		}
		set++
		s := r.NonEmpty(path+"."+key, m[key])
		return &s
	}
	p.Issuer = optional("issuer")
	p.Grantee = optional("grantee")
	p.Effect = optional("effect")
	p.Action = optional("action")
	p.Vendor = optional("vendor")
	p.Currency = optional("currency")
	p.ValidFrom = optional("valid_from")
	p.ValidUntil = optional("valid_until")
	if m["allowed_categories"] != nil {
		set++
		p.AllowedCategories = r.uniqueList(path+".allowed_categories", m["allowed_categories"])
	}
	if m["max_amount"] != nil {
		set++
		n := r.integer(path+".max_amount", m["max_amount"])
		if r.Err == nil && n < 0 {
			r.Set(engine.Errf(path+".max_amount", "must be >= 0"))
		}
		p.MaxAmount = &n
	}
	if r.Err == nil && set == 0 {
		r.Set(engine.Errf(path, "a patch changes at least one field"))
	}
	return p
}

func (r *reader) pair(path string, v any) ProbePair {
	f, ok := r.object(path, v, pairKeys)
	if !ok {
		return ProbePair{}
	}
	return ProbePair{
		PairID:     f.nonEmpty("pair_id"),
		Dimension:  f.nonEmpty("dimension"),
		InScope:    r.probe(f.at("in_scope"), f.value("in_scope")),
		OutOfScope: r.probe(f.at("out_of_scope"), f.value("out_of_scope")),
	}
}

func (r *reader) probe(path string, v any) TransactionProbe {
	f, ok := r.object(path, v, probeKeys)
	if !ok {
		return TransactionProbe{}
	}
	p := TransactionProbe{
		Name:         f.nonEmpty("name"),
		RequestScope: f.nonEmpty("request_scope"),
	}
	tf, ok := r.object(f.at("transaction"), f.value("transaction"), transactionKeys)
	if !ok {
		return p
	}
	p.Transaction = Transaction{
		TransactionID: tf.nonEmpty("transaction_id"),
		Grantee:       tf.nonEmpty("grantee"),
		Action:        tf.nonEmpty("action"),
		Vendor:        tf.nonEmpty("vendor"),
		Category:      tf.nonEmpty("category"),
		Amount:        tf.integer("amount"),
		Currency:      tf.nonEmpty("currency"),
		ActionTime:    tf.nonEmpty("action_time"),
	}
	return p
}
