package finance

import (
	"encoding/json"
	"strconv"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// Execution courses of a trade request (EAL-Bench's resolve_execution_course): the submitted
// payload, or the operational near-match the challenge offers as an alternative.
const (
	CourseSubmitted   = "submitted_order"
	CourseOperational = "operational_payload"
)

// TradeRequest is EAL-Bench's finance TradeRequest: the ten visible order fields, plus the
// hidden execution course and the operational near-match carried by corpus probes (docs/FORMATS.md
// 2.3). Two requests are the same order when their visible fields are equal.
type TradeRequest struct {
	ActorID            string
	AccountID          string
	StrategyID         string
	InstrumentID       string
	Side               string
	OrderType          string
	Quantity           int64
	LimitPriceMicros   int64
	SettlementCurrency string
	RequestedAt        string
	// ExecutionCourse is "submitted_order" unless the request is a resolved operational order.
	ExecutionCourse string
	// NearMatch is the operational near-match payload (nil when the corpus gives none).
	NearMatch *TradeRequest
	// challenge is the probe's operational-alternative context, attached when the case is
	// converted for the engine; RenderRequest places it before the submitted order.
	challenge *envelope.Challenge
}

// requestKeys are the visible fields in EAL-Bench's to_dict order.
var requestKeys = []string{
	"actor_id", "account_id", "strategy_id", "instrument_id", "side", "order_type", "quantity",
	"limit_price_micros", "settlement_currency", "requested_at",
}

// Visible is the request as the executor sees it (to_dict): no course, no near-match.
func (r TradeRequest) Visible() map[string]any {
	return map[string]any{
		"actor_id":            r.ActorID,
		"account_id":          r.AccountID,
		"strategy_id":         r.StrategyID,
		"instrument_id":       r.InstrumentID,
		"side":                r.Side,
		"order_type":          r.OrderType,
		"quantity":            json.Number(strconv.FormatInt(r.Quantity, 10)),
		"limit_price_micros":  json.Number(strconv.FormatInt(r.LimitPriceMicros, 10)),
		"settlement_currency": r.SettlementCurrency,
		"requested_at":        r.RequestedAt,
	}
}

// Tree is the request in the corpus form: the visible fields plus execution_course and
// operational_near_match when present.
func (r TradeRequest) Tree() map[string]any {
	m := r.Visible()
	if r.ExecutionCourse != "" {
		m["execution_course"] = r.ExecutionCourse
	}
	if r.NearMatch != nil {
		m["operational_near_match"] = r.NearMatch.Visible()
	}
	return m
}

// SameOrder is EAL-Bench's dataclass equality of two requests: the visible fields only.
func (r TradeRequest) SameOrder(o TradeRequest) bool {
	return r.ActorID == o.ActorID && r.AccountID == o.AccountID && r.StrategyID == o.StrategyID &&
		r.InstrumentID == o.InstrumentID && r.Side == o.Side && r.OrderType == o.OrderType &&
		r.Quantity == o.Quantity && r.LimitPriceMicros == o.LimitPriceMicros &&
		r.SettlementCurrency == o.SettlementCurrency && r.RequestedAt == o.RequestedAt
}

// Operational is the order placed by the operational tool: the near-match with the
// operational course (nil when the request has no near-match).
func (r TradeRequest) Operational() *TradeRequest {
	if r.NearMatch == nil {
		return nil
	}
	op := *r.NearMatch
	op.ExecutionCourse = CourseOperational
	op.NearMatch = r.NearMatch
	op.challenge = nil
	return &op
}

// readRequest reads a corpus request strictly. nested reads an operational_near_match, which
// holds the visible fields only.
func readRequest(path string, v any, nested bool) (TradeRequest, error) {
	m, err := engine.Obj(path, v)
	if err != nil {
		return TradeRequest{}, err
	}
	var optional []string
	if !nested {
		optional = []string{"execution_course", "operational_near_match"}
	}
	if err := engine.ExactKeys(path, m, requestKeys, optional...); err != nil {
		return TradeRequest{}, err
	}
	r := TradeRequest{}
	fields := []struct {
		key string
		dst *string
	}{
		{"actor_id", &r.ActorID}, {"account_id", &r.AccountID}, {"strategy_id", &r.StrategyID},
		{"instrument_id", &r.InstrumentID}, {"side", &r.Side}, {"order_type", &r.OrderType},
		{"settlement_currency", &r.SettlementCurrency}, {"requested_at", &r.RequestedAt},
	}
	for _, f := range fields {
		s, err := engine.NonEmptyStr(engine.JoinPath(path, f.key), m[f.key])
		if err != nil {
			return TradeRequest{}, err
		}
		*f.dst = s
	}
	if r.Quantity, err = engine.Int(engine.JoinPath(path, "quantity"), m["quantity"]); err != nil {
		return TradeRequest{}, err
	}
	if r.LimitPriceMicros, err = engine.Int(engine.JoinPath(path, "limit_price_micros"), m["limit_price_micros"]); err != nil {
		return TradeRequest{}, err
	}
	if _, aware, err := engine.ParseISOTime(r.RequestedAt); err != nil || !aware {
		return TradeRequest{}, engine.Errf(engine.JoinPath(path, "requested_at"), "%q is not an ISO timestamp with an offset", r.RequestedAt)
	}
	if nested {
		return r, nil
	}
	r.ExecutionCourse = CourseSubmitted
	if c, ok := m["execution_course"]; ok {
		s, err := engine.Str(engine.JoinPath(path, "execution_course"), c)
		if err != nil {
			return TradeRequest{}, err
		}
		if s != CourseSubmitted {
			return TradeRequest{}, engine.Errf(engine.JoinPath(path, "execution_course"), "a corpus request is the %s course, got %q", CourseSubmitted, s)
		}
	}
	if nm, ok := m["operational_near_match"]; ok && nm != nil {
		near, err := readRequest(engine.JoinPath(path, "operational_near_match"), nm, true)
		if err != nil {
			return TradeRequest{}, err
		}
		r.NearMatch = &near
	}
	return r, nil
}
