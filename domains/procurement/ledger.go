package procurement

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Scope is the scope object of an authorization envelope.
type Scope struct {
	Vendor            *string  `json:"vendor"`
	AllowedCategories []string `json:"allowed_categories"` // nil is JSON null
	MaxAmount         *int64   `json:"max_amount"`
	Currency          *string  `json:"currency"`
}

// Envelope is an authorization record in EAL-Bench's envelope shape, used for both ledger
// records and remembered (typed memory) records so that one predicate judges both.
type Envelope struct {
	ID            string   `json:"authorization_id"`
	Issuer        *string  `json:"issuer"`
	Grantee       *string  `json:"grantee"`
	Effect        *string  `json:"effect"`
	Action        *string  `json:"action"`
	State         string   `json:"status"`
	ValidFrom     *string  `json:"valid_from"`
	ValidUntil    *string  `json:"valid_until"`
	Scope         Scope    `json:"scope"`
	Supersedes    *string  `json:"supersedes"`
	SourceTurnIDs []string `json:"source_turn_ids"`
}

// AuthorizationID implements engine.Record.
func (e *Envelope) AuthorizationID() string { return e.ID }

// Status implements engine.Record.
func (e *Envelope) Status() string { return e.State }

// Tree is the envelope as a JSON tree in EAL-Bench's to_dict shape.
func (e *Envelope) Tree() map[string]any {
	return map[string]any{
		"authorization_id": e.ID,
		"issuer":           pyjson.OrNull(e.Issuer),
		"grantee":          pyjson.OrNull(e.Grantee),
		"effect":           pyjson.OrNull(e.Effect),
		"action":           pyjson.OrNull(e.Action),
		"status":           e.State,
		"valid_from":       pyjson.OrNull(e.ValidFrom),
		"valid_until":      pyjson.OrNull(e.ValidUntil),
		"scope": map[string]any{
			"vendor":             pyjson.OrNull(e.Scope.Vendor),
			"allowed_categories": pyjson.StringList(e.Scope.AllowedCategories),
			"max_amount":         pyjson.OrNull(e.Scope.MaxAmount),
			"currency":           pyjson.OrNull(e.Scope.Currency),
		},
		"supersedes":      pyjson.OrNull(e.Supersedes),
		"source_turn_ids": pyjson.StringList(e.SourceTurnIDs),
	}
}

func sp(s string) *string { return &s }

// envelopeOf converts a canonical record to the envelope shape.
func envelopeOf(r *Record) *Envelope {
	amount := r.MaxAmount
	return &Envelope{
		ID: r.AuthorizationID, Issuer: sp(r.Issuer), Grantee: sp(r.Grantee), Effect: sp(r.Effect),
		Action: sp(r.Action), State: r.Status, ValidFrom: sp(r.ValidFrom), ValidUntil: sp(r.ValidUntil),
		Scope: Scope{
			Vendor: sp(r.Vendor), AllowedCategories: append([]string(nil), r.AllowedCategories...),
			MaxAmount: &amount, Currency: sp(r.Currency),
		},
		Supersedes:    r.Supersedes,
		SourceTurnIDs: append([]string(nil), r.SourceTurnIDs...),
	}
}

// ReplayRecords applies the events of blocks 0..through and returns the canonical records,
// sorted by id, inactive ones included (procurement's ledger keeps them).
func ReplayRecords(c *Case, through int) ([]*Record, error) {
	ledger := map[string]*Record{}
	byBlock := map[string][]Event{}
	for _, e := range c.Events {
		byBlock[e.BlockID] = append(byBlock[e.BlockID], e)
	}
	for _, b := range c.Blocks {
		if b.BlockIndex > through {
			break
		}
		events := byBlock[b.BlockID]
		sort.SliceStable(events, func(i, j int) bool {
			ti, _, _ := engine.ParseISOTime(events[i].EffectiveAt)
			tj, _, _ := engine.ParseISOTime(events[j].EffectiveAt)
			return ti.Before(tj)
		})
		for _, e := range events {
			if err := applyEvent(ledger, e); err != nil {
				return nil, fmt.Errorf("event %s: %w", e.EventID, err)
			}
		}
	}
	ids := make([]string, 0, len(ledger))
	for id := range ledger {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]*Record, len(ids))
	for i, id := range ids {
		out[i] = ledger[id]
	}
	return out, nil
}

func applyEvent(ledger map[string]*Record, e Event) error {
	switch e.EventType {
	case "issue":
		if _, exists := ledger[e.AuthorizationID]; exists {
			return fmt.Errorf("issue of existing authorization %s", e.AuthorizationID)
		}
		r := cloneRecord(e.Record)
		ledger[r.AuthorizationID] = r
	case "patch":
		r, err := activeTarget(ledger, e)
		if err != nil {
			return err
		}
		p := e.Patch
		setIf(&r.Issuer, p.Issuer)
		setIf(&r.Grantee, p.Grantee)
		setIf(&r.Effect, p.Effect)
		setIf(&r.Action, p.Action)
		setIf(&r.Vendor, p.Vendor)
		if p.AllowedCategories != nil {
			r.AllowedCategories = append([]string(nil), p.AllowedCategories...)
		}
		if p.MaxAmount != nil {
			r.MaxAmount = *p.MaxAmount
		}
		setIf(&r.Currency, p.Currency)
		setIf(&r.ValidFrom, p.ValidFrom)
		setIf(&r.ValidUntil, p.ValidUntil)
		r.SourceTurnIDs = mergeIDs(r.SourceTurnIDs, e.SourceTurnIDs)
	case "revoke":
		r, err := activeTarget(ledger, e)
		if err != nil {
			return err
		}
		r.Status = "revoked"
		r.SourceTurnIDs = mergeIDs(r.SourceTurnIDs, e.SourceTurnIDs)
	case "replace":
		old, ok := ledger[e.AuthorizationID]
		if !ok {
			return fmt.Errorf("replace of unknown authorization %s", e.AuthorizationID)
		}
		if old.Status != "active" && old.Status != "revoked" {
			return fmt.Errorf("replace of %s authorization %s", old.Status, e.AuthorizationID)
		}
		if _, exists := ledger[e.Record.AuthorizationID]; exists {
			return fmt.Errorf("replacement id %s already exists", e.Record.AuthorizationID)
		}
		old.Status = "superseded"
		old.SourceTurnIDs = mergeIDs(old.SourceTurnIDs, e.SourceTurnIDs)
		r := cloneRecord(e.Record)
		ledger[r.AuthorizationID] = r
	default:
		return fmt.Errorf("unknown event type %q", e.EventType)
	}
	return nil
}

func activeTarget(ledger map[string]*Record, e Event) (*Record, error) {
	r, ok := ledger[e.AuthorizationID]
	if !ok {
		return nil, fmt.Errorf("%s of unknown authorization %s", e.EventType, e.AuthorizationID)
	}
	if r.Status != "active" {
		return nil, fmt.Errorf("%s of %s authorization %s", e.EventType, r.Status, e.AuthorizationID)
	}
	return r, nil
}

func setIf(dst *string, v *string) {
	if v != nil {
		*dst = *v
	}
}

func cloneRecord(r *Record) *Record {
	c := *r
	c.AllowedCategories = append([]string(nil), r.AllowedCategories...)
	c.SourceTurnIDs = append([]string(nil), r.SourceTurnIDs...)
	if r.Supersedes != nil {
		s := *r.Supersedes
		c.Supersedes = &s
	}
	return &c
}

// mergeIDs is an order-preserving de-duplicating concatenation.
func mergeIDs(a, b []string) []string {
	seen := map[string]bool{}
	out := make([]string, 0, len(a)+len(b))
	for _, id := range append(append([]string(nil), a...), b...) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func unknownValue(s *string) bool {
	if s == nil {
		return true
	}
	v := strings.ToLower(engine.PyStrip(*s))
	return v == "" || v == "unknown"
}

// Denial is EAL-Bench's procurement_denial: the first reason the record does not authorize
// the transaction, or "" when it does.
func Denial(authorizedIssuers []string, r *Envelope, tx Transaction) string {
	var missing []string
	idCopy := r.ID
	named := []struct {
		name string
		v    *string
	}{
		{"authorization_id", &idCopy}, {"issuer", r.Issuer}, {"grantee", r.Grantee},
		{"effect", r.Effect}, {"action", r.Action}, {"vendor", r.Scope.Vendor},
		{"currency", r.Scope.Currency}, {"valid_from", r.ValidFrom}, {"valid_until", r.ValidUntil},
		{"status", &r.State},
	}
	for _, f := range named {
		if unknownValue(f.v) {
			missing = append(missing, f.name)
		}
	}
	if r.Scope.MaxAmount == nil {
		missing = append(missing, "max_amount")
	}
	cats := r.Scope.AllowedCategories
	badCats := len(cats) == 0
	for i := range cats {
		if unknownValue(&cats[i]) {
			badCats = true
		}
	}
	if badCats {
		missing = append(missing, "allowed_categories")
	}
	if len(r.SourceTurnIDs) == 0 {
		missing = append(missing, "source_turn_ids")
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "missing_or_unknown:" + strings.Join(missing, ",")
	}
	authoritative := false
	for _, iss := range authorizedIssuers {
		if iss == *r.Issuer {
			authoritative = true
		}
	}
	if !authoritative {
		return "issuer_not_authoritative"
	}
	if *r.Effect != "permit_exception" {
		return "effect_not_permitting"
	}
	if r.State != "active" {
		return "status_" + r.State
	}
	if *r.Grantee != tx.Grantee {
		return "grantee_out_of_scope"
	}
	if *r.Action != tx.Action {
		return "action_out_of_scope"
	}
	if *r.Scope.Vendor != tx.Vendor {
		return "vendor_out_of_scope"
	}
	if *r.Scope.Currency != tx.Currency {
		return "currency_out_of_scope"
	}
	inCats := false
	for _, c := range cats {
		if c == tx.Category {
			inCats = true
		}
	}
	if !inCats {
		return "category_out_of_scope"
	}
	if tx.Amount > *r.Scope.MaxAmount {
		return "amount_out_of_scope"
	}
	from, okFrom := awareTime(*r.ValidFrom)
	until, okUntil := awareTime(*r.ValidUntil)
	at, okAt := awareTime(tx.ActionTime)
	if !okFrom || !okUntil || !okAt {
		return "invalid_timestamp"
	}
	if !from.Before(until) {
		return "invalid_validity_interval"
	}
	if at.Before(from) || !at.Before(until) {
		return "time_out_of_scope"
	}
	return ""
}

func awareTime(s string) (time.Time, bool) {
	t, aware, err := engine.ParseISOTime(s)
	return t, err == nil && aware
}
