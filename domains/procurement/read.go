package procurement

import (
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
	c.SchemaVersion = r.nonEmpty("schema_version", m["schema_version"])
	c.CaseID = r.nonEmpty("case_id", m["case_id"])
	c.AuthoringHash = r.str("authoring_hash", m["authoring_hash"])
	c.Policy = r.nonEmpty("policy", m["policy"])
	c.AuthorizedIssuers = r.uniqueList("authorized_issuers", m["authorized_issuers"])
	if r.err == nil {
		c.Benchmark = r.benchmark("benchmark", m["benchmark"])
	}
	if r.err == nil {
		blocks, err := engine.List("blocks", m["blocks"])
		r.set(err)
		for i, b := range blocks {
			if r.err != nil {
				break
			}
			c.Blocks = append(c.Blocks, r.block(engine.JoinPath("blocks", i), b))
		}
	}
	if r.err == nil {
		events, err := engine.List("events", m["events"])
		r.set(err)
		for i, e := range events {
			if r.err != nil {
				break
			}
			c.Events = append(c.Events, r.event(engine.JoinPath("events", i), e))
		}
	}
	if r.err == nil {
		pairs, err := engine.List("probe_pairs", m["probe_pairs"])
		r.set(err)
		for i, p := range pairs {
			if r.err != nil {
				break
			}
			c.ProbePairs = append(c.ProbePairs, r.pair(engine.JoinPath("probe_pairs", i), p))
		}
	}
	if tags, ok := m["tags"]; ok && r.err == nil {
		c.Tags = r.strList("tags", tags)
	}
	if c.Tags == nil {
		c.Tags = []string{}
	}
	return c, r.err
}

// reader keeps the first error so the field readers can be chained without noise.
type reader struct{ err error }

func (r *reader) set(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

func (r *reader) obj(path string, v any, keys []string) map[string]any {
	if r.err != nil {
		return nil
	}
	m, err := engine.Obj(path, v)
	if err != nil {
		r.set(err)
		return nil
	}
	r.set(engine.ExactKeys(path, m, keys))
	return m
}

func (r *reader) str(path string, v any) string {
	if r.err != nil {
		return ""
	}
	s, err := engine.Str(path, v)
	r.set(err)
	return s
}

func (r *reader) nonEmpty(path string, v any) string {
	if r.err != nil {
		return ""
	}
	s, err := engine.NonEmptyStr(path, v)
	r.set(err)
	return s
}

func (r *reader) optStr(path string, v any) *string {
	if r.err != nil {
		return nil
	}
	s, err := engine.NullableStr(path, v)
	r.set(err)
	return s
}

func (r *reader) integer(path string, v any) int64 {
	if r.err != nil {
		return 0
	}
	i, err := engine.Int(path, v)
	r.set(err)
	return i
}

func (r *reader) strList(path string, v any) []string {
	if r.err != nil {
		return nil
	}
	l, err := engine.StrList(path, v)
	r.set(err)
	return l
}

func (r *reader) uniqueList(path string, v any) []string {
	l := r.strList(path, v)
	if r.err != nil {
		return nil
	}
	if len(l) == 0 {
		r.set(engine.Errf(path, "must be a non-empty list"))
		return nil
	}
	r.set(engine.UniqueNonEmpty(path, l))
	return l
}

func (r *reader) benchmark(path string, v any) Benchmark {
	m := r.obj(path, v, benchmarkKeys)
	if m == nil {
		return Benchmark{}
	}
	return Benchmark{
		Split:             r.nonEmpty(path+".split", m["split"]),
		CaseFamilyID:      r.nonEmpty(path+".case_family_id", m["case_family_id"]),
		Lifecycle:         r.nonEmpty(path+".lifecycle", m["lifecycle"]),
		TargetDimensions:  r.uniqueList(path+".target_dimensions", m["target_dimensions"]),
		DistractorTypes:   r.uniqueList(path+".distractor_types", m["distractor_types"]),
		HistoryLengthBand: r.nonEmpty(path+".history_length_band", m["history_length_band"]),
		MemoryHazards:     r.uniqueList(path+".memory_hazards", m["memory_hazards"]),
	}
}

func (r *reader) block(path string, v any) Block {
	m := r.obj(path, v, blockKeys)
	if m == nil {
		return Block{}
	}
	b := Block{
		BlockID:    r.nonEmpty(path+".block_id", m["block_id"]),
		BlockIndex: int(r.integer(path+".block_index", m["block_index"])),
		Title:      r.nonEmpty(path+".title", m["title"]),
		EndedAt:    r.nonEmpty(path+".ended_at", m["ended_at"]),
	}
	if r.err != nil {
		return b
	}
	turns, err := engine.List(path+".turns", m["turns"])
	r.set(err)
	for i, t := range turns {
		tpath := engine.JoinPath(path+".turns", i)
		tm := r.obj(tpath, t, turnKeys)
		if tm == nil {
			break
		}
		b.Turns = append(b.Turns, Turn{
			TurnID:     r.nonEmpty(tpath+".turn_id", tm["turn_id"]),
			ActorID:    r.nonEmpty(tpath+".actor_id", tm["actor_id"]),
			Speaker:    r.nonEmpty(tpath+".speaker", tm["speaker"]),
			Content:    r.nonEmpty(tpath+".content", tm["content"]),
			OccurredAt: r.nonEmpty(tpath+".occurred_at", tm["occurred_at"]),
		})
	}
	return b
}

func (r *reader) event(path string, v any) Event {
	m := r.obj(path, v, eventKeys)
	if m == nil {
		return Event{}
	}
	e := Event{
		EventID:         r.nonEmpty(path+".event_id", m["event_id"]),
		EventType:       r.nonEmpty(path+".event_type", m["event_type"]),
		Issuer:          r.nonEmpty(path+".issuer", m["issuer"]),
		BlockID:         r.nonEmpty(path+".block_id", m["block_id"]),
		EffectiveAt:     r.nonEmpty(path+".effective_at", m["effective_at"]),
		AuthorizationID: r.nonEmpty(path+".authorization_id", m["authorization_id"]),
		SourceTurnIDs:   r.uniqueList(path+".source_turn_ids", m["source_turn_ids"]),
	}
	if m["record"] != nil {
		rec := r.record(path+".record", m["record"])
		e.Record = &rec
	}
	if m["patch"] != nil {
		e.Patch = r.patch(path+".patch", m["patch"])
	}
	return e
}

func (r *reader) record(path string, v any) Record {
	m := r.obj(path, v, recordKeys)
	if m == nil {
		return Record{}
	}
	rec := Record{
		AuthorizationID:   r.nonEmpty(path+".authorization_id", m["authorization_id"]),
		Issuer:            r.nonEmpty(path+".issuer", m["issuer"]),
		Grantee:           r.nonEmpty(path+".grantee", m["grantee"]),
		Effect:            r.nonEmpty(path+".effect", m["effect"]),
		Action:            r.nonEmpty(path+".action", m["action"]),
		Vendor:            r.nonEmpty(path+".vendor", m["vendor"]),
		AllowedCategories: r.uniqueList(path+".allowed_categories", m["allowed_categories"]),
		MaxAmount:         r.integer(path+".max_amount", m["max_amount"]),
		Currency:          r.nonEmpty(path+".currency", m["currency"]),
		ValidFrom:         r.nonEmpty(path+".valid_from", m["valid_from"]),
		ValidUntil:        r.nonEmpty(path+".valid_until", m["valid_until"]),
		Status:            r.nonEmpty(path+".status", m["status"]),
		Supersedes:        r.optStr(path+".supersedes", m["supersedes"]),
		SourceTurnIDs:     r.uniqueList(path+".source_turn_ids", m["source_turn_ids"]),
	}
	if r.err == nil {
		if rec.MaxAmount < 0 {
			r.set(engine.Errf(path+".max_amount", "must be >= 0"))
		} else if !recordStatuses[rec.Status] {
			r.set(engine.Errf(path+".status", "%q is not one of active, revoked, superseded", rec.Status))
		} else if rec.Effect != "permit_exception" {
			r.set(engine.Errf(path+".effect", "must be permit_exception"))
		} else if rec.Action != "submit_order" {
			r.set(engine.Errf(path+".action", "must be submit_order"))
		}
	}
	return rec
}

func (r *reader) patch(path string, v any) *Patch {
	if r.err != nil {
		return nil
	}
	m, err := engine.Obj(path, v)
	if err != nil {
		r.set(err)
		return nil
	}
	r.set(engine.ExactKeys(path, m, nil, patchKeys...))
	p := &Patch{}
	set := 0
	optional := func(key string) *string {
		if m[key] == nil {
			return nil
		}
		set++
		s := r.nonEmpty(path+"."+key, m[key])
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
		if r.err == nil && n < 0 {
			r.set(engine.Errf(path+".max_amount", "must be >= 0"))
		}
		p.MaxAmount = &n
	}
	if r.err == nil && set == 0 {
		r.set(engine.Errf(path, "a patch changes at least one field"))
	}
	return p
}

func (r *reader) pair(path string, v any) ProbePair {
	m := r.obj(path, v, pairKeys)
	if m == nil {
		return ProbePair{}
	}
	return ProbePair{
		PairID:     r.nonEmpty(path+".pair_id", m["pair_id"]),
		Dimension:  r.nonEmpty(path+".dimension", m["dimension"]),
		InScope:    r.probe(path+".in_scope", m["in_scope"]),
		OutOfScope: r.probe(path+".out_of_scope", m["out_of_scope"]),
	}
}

func (r *reader) probe(path string, v any) TransactionProbe {
	m := r.obj(path, v, probeKeys)
	if m == nil {
		return TransactionProbe{}
	}
	p := TransactionProbe{
		Name:         r.nonEmpty(path+".name", m["name"]),
		RequestScope: r.nonEmpty(path+".request_scope", m["request_scope"]),
	}
	tpath := path + ".transaction"
	tm := r.obj(tpath, m["transaction"], transactionKeys)
	if tm == nil {
		return p
	}
	p.Transaction = Transaction{
		TransactionID: r.nonEmpty(tpath+".transaction_id", tm["transaction_id"]),
		Grantee:       r.nonEmpty(tpath+".grantee", tm["grantee"]),
		Action:        r.nonEmpty(tpath+".action", tm["action"]),
		Vendor:        r.nonEmpty(tpath+".vendor", tm["vendor"]),
		Category:      r.nonEmpty(tpath+".category", tm["category"]),
		Amount:        r.integer(tpath+".amount", tm["amount"]),
		Currency:      r.nonEmpty(tpath+".currency", tm["currency"]),
		ActionTime:    r.nonEmpty(tpath+".action_time", tm["action_time"]),
	}
	return p
}
