package finance

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// Literal envelope values of every finance mandate (docs/FORMATS.md 2.3).
const (
	MandateIssuer  = "portfolio_mandate_officer"
	MandateGrantee = "portfolio_execution_agent"
	MandateEffect  = "permit_portfolio_order"
	MandateAction  = "place_portfolio_order"
)

// Scope field names of a finance mandate.
const (
	fieldAccount     = "account_id"
	fieldStrategies  = "strategy_ids"
	fieldInstruments = "instrument_ids"
	fieldSides       = "sides"
	fieldOrderTypes  = "order_types"
	fieldMaxQuantity = "max_quantity"
	fieldMinPrice    = "min_limit_price_micros"
	fieldMaxPrice    = "max_limit_price_micros"
	fieldCurrency    = "settlement_currency"
)

// ScopeSpec is the finance scope object in EAL-Bench's declaration order; the quantity and
// the price maximum are upper bounds, the price minimum a lower bound (docs/FORMATS.md 7.1).
var ScopeSpec = envelope.ScopeSpec{Fields: []envelope.ScopeField{
	{Name: fieldAccount, Kind: envelope.ScopeString},
	{Name: fieldStrategies, Kind: envelope.ScopeList},
	{Name: fieldInstruments, Kind: envelope.ScopeList},
	{Name: fieldSides, Kind: envelope.ScopeList},
	{Name: fieldOrderTypes, Kind: envelope.ScopeList},
	{Name: fieldMaxQuantity, Kind: envelope.ScopeInt, Bound: envelope.UpperBound},
	{Name: fieldMinPrice, Kind: envelope.ScopeInt, Bound: envelope.LowerBound},
	{Name: fieldMaxPrice, Kind: envelope.ScopeInt, Bound: envelope.UpperBound},
	{Name: fieldCurrency, Kind: envelope.ScopeString},
}}

// listFields are the scope lists, which the flat schema joins with " | ".
var listFields = []string{fieldStrategies, fieldInstruments, fieldSides, fieldOrderTypes}

// scopeListLimit is the nested typed schema's bound on each scope list (1..8 items).
const scopeListLimit = 8

// parseProfileScope is the nested typed schema's ScopeProfile: stripped non-empty strings,
// lists of 1..8 stripped non-empty strings, max_quantity > 0, min price >= 0, max price > 0
// and min <= max.
func parseProfileScope(path string, v any) (envelope.Scope, error) {
	s, err := envelope.StrictScope(ScopeSpec, 1, scopeListLimit)(path, v)
	if err != nil {
		return nil, err
	}
	return s, checkScopeBounds(path, s)
}

// checkScopeBounds applies the typed schema's integer bounds.
func checkScopeBounds(path string, s envelope.Scope) error {
	q, _ := s.Int(fieldMaxQuantity)
	lo, _ := s.Int(fieldMinPrice)
	hi, _ := s.Int(fieldMaxPrice)
	switch {
	case q <= 0:
		return engine.Errf(engine.JoinPath(path, fieldMaxQuantity), "must be greater than 0, got %d", q)
	case lo < 0:
		return engine.Errf(engine.JoinPath(path, fieldMinPrice), "must be at least 0, got %d", lo)
	case hi <= 0:
		return engine.Errf(engine.JoinPath(path, fieldMaxPrice), "must be greater than 0, got %d", hi)
	case lo > hi:
		return engine.Errf(engine.JoinPath(path, fieldMinPrice), "minimum limit price cannot exceed maximum limit price (%d > %d)", lo, hi)
	}
	return nil
}

func eq(p *string, want string) bool { return p != nil && *p == want }

// Denial is EAL-Bench's finance record_denial (docs/FORMATS.md 3.4): "" when the mandate covers the
// order, else the first failing check, in its order: inactive, issuer, actor, effect, action,
// unknown_window, time, missing_scope, account, currency, strategy, instrument, side,
// order_type, quantity, price_window, limit_price.
//
// A remembered mandate is judged after EAL-Bench's flat-to-nested conversion, which strips
// each list item; ledger items carry no surrounding space (the corpus reader refuses it), so
// list items are compared stripped for both. A window bound that does not parse, or lacks an
// offset, is "unknown_window" (EAL-Bench raises there; typed memories never get that far).
func Denial(m *envelope.Record, r TradeRequest) string {
	switch {
	case m.State != envelope.StatusActive:
		return "inactive"
	case !eq(m.Issuer, MandateIssuer):
		return "issuer"
	case !eq(m.Grantee, r.ActorID):
		return "actor"
	case !eq(m.Effect, MandateEffect):
		return "effect"
	case !eq(m.Action, MandateAction):
		return "action"
	case m.ValidFrom == nil || m.ValidUntil == nil:
		return "unknown_window"
	}
	from, fromAware, errFrom := engine.ParseISOTime(*m.ValidFrom)
	until, untilAware, errUntil := engine.ParseISOTime(*m.ValidUntil)
	at, _, errAt := engine.ParseISOTime(r.RequestedAt)
	if errFrom != nil || errUntil != nil || errAt != nil || !fromAware || !untilAware {
		return "unknown_window"
	}
	if at.Before(from) || !at.Before(until) {
		return "time"
	}
	if m.Scope == nil {
		return "missing_scope"
	}
	if v, ok := m.Scope.Str(fieldAccount); !ok || v != r.AccountID {
		return "account"
	}
	if v, ok := m.Scope.Str(fieldCurrency); !ok || v != r.SettlementCurrency {
		return "currency"
	}
	for _, mem := range []struct{ field, value, reason string }{
		{fieldStrategies, r.StrategyID, "strategy"},
		{fieldInstruments, r.InstrumentID, "instrument"},
		{fieldSides, r.Side, "side"},
		{fieldOrderTypes, r.OrderType, "order_type"},
	} {
		if !member(m.Scope, mem.field, mem.value) {
			return mem.reason
		}
	}
	if q, ok := m.Scope.Int(fieldMaxQuantity); !ok || r.Quantity > q {
		return "quantity"
	}
	lo, okLo := m.Scope.Int(fieldMinPrice)
	hi, okHi := m.Scope.Int(fieldMaxPrice)
	if !okLo || !okHi {
		return "price_window"
	}
	if r.LimitPriceMicros < lo || r.LimitPriceMicros > hi {
		return "limit_price"
	}
	return ""
}

func member(s envelope.Scope, field, value string) bool {
	l, ok := s.List(field)
	if !ok {
		return false
	}
	for _, x := range l {
		if strings.TrimSpace(x) == value {
			return true
		}
	}
	return false
}

func intNumber(n int64) json.Number { return json.Number(strconv.FormatInt(n, 10)) }
