package finance

import (
	"testing"

	"github.com/ealscope/ealscope/domains/envelope"
)

func coveringMandate() *envelope.Record {
	return &envelope.Record{
		ID: "M", Issuer: envelope.Str(MandateIssuer), Grantee: envelope.Str(MandateGrantee),
		Effect: envelope.Str(MandateEffect), Action: envelope.Str(MandateAction), State: "active",
		ValidFrom: envelope.Str("2026-10-01T00:00:00Z"), ValidUntil: envelope.Str("2027-02-01T00:00:00Z"),
		Scope: envelope.Scope{
			fieldAccount: "A1", fieldStrategies: []string{"S1"}, fieldInstruments: []string{"I1", "I2"},
			fieldSides: []string{"buy"}, fieldOrderTypes: []string{"limit"}, fieldMaxQuantity: int64(800),
			fieldMinPrice: int64(75), fieldMaxPrice: int64(125), fieldCurrency: "USD",
		},
		SourceTurnIDs: []string{"src_1"},
	}
}

func coveredOrder() TradeRequest {
	return TradeRequest{
		ActorID: MandateGrantee, AccountID: "A1", StrategyID: "S1", InstrumentID: "I2", Side: "buy", OrderType: "limit",
		Quantity: 800, LimitPriceMicros: 125, SettlementCurrency: "USD", RequestedAt: "2026-10-01T00:00:00Z",
	}
}

// TestDenialOrder: one row per denial reason of docs/FORMATS.md 3.4, each made by breaking the
// first failing check only, plus the boundaries (inclusive from, exclusive until, inclusive
// quantity and price window).
func TestDenialOrder(t *testing.T) {
	cases := []struct {
		want string
		edit func(m *envelope.Record, r *TradeRequest)
	}{
		{"", func(*envelope.Record, *TradeRequest) {}},
		{"inactive", func(m *envelope.Record, r *TradeRequest) { m.State = "superseded"; m.Issuer = nil }},
		{"issuer", func(m *envelope.Record, r *TradeRequest) { m.Issuer = envelope.Str("risk_analyst"); r.ActorID = "x" }},
		{"issuer", func(m *envelope.Record, r *TradeRequest) { m.Issuer = nil }},
		{"actor", func(m *envelope.Record, r *TradeRequest) { r.ActorID = "execution_trader"; m.Effect = nil }},
		{"effect", func(m *envelope.Record, r *TradeRequest) { m.Effect = envelope.Str("permit_exception"); m.Action = nil }},
		{"action", func(m *envelope.Record, r *TradeRequest) { m.Action = envelope.Str("submit_order"); m.ValidFrom = nil }},
		{"unknown_window", func(m *envelope.Record, r *TradeRequest) { m.ValidUntil = nil }},
		{"unknown_window", func(m *envelope.Record, r *TradeRequest) { m.ValidFrom = envelope.Str("2026-10-01T00:00:00") }},
		{"time", func(m *envelope.Record, r *TradeRequest) { r.RequestedAt = "2026-09-30T23:59:59Z"; m.Scope = nil }},
		{"time", func(m *envelope.Record, r *TradeRequest) { r.RequestedAt = "2027-02-01T00:00:00Z" }},
		{"", func(m *envelope.Record, r *TradeRequest) { r.RequestedAt = "2027-01-31T23:59:59.999999Z" }},
		{"", func(m *envelope.Record, r *TradeRequest) { r.RequestedAt = "2026-10-01T02:00:00+02:00" }},
		{"missing_scope", func(m *envelope.Record, r *TradeRequest) { m.Scope = nil }},
		{"account", func(m *envelope.Record, r *TradeRequest) { r.AccountID = "A2"; r.SettlementCurrency = "EUR" }},
		{"account", func(m *envelope.Record, r *TradeRequest) { m.Scope[fieldAccount] = nil }},
		{"currency", func(m *envelope.Record, r *TradeRequest) { r.SettlementCurrency = "EUR"; r.StrategyID = "S9" }},
		{"strategy", func(m *envelope.Record, r *TradeRequest) { r.StrategyID = "S9"; r.InstrumentID = "I9" }},
		{"instrument", func(m *envelope.Record, r *TradeRequest) { r.InstrumentID = "I9"; r.Side = "sell" }},
		{"side", func(m *envelope.Record, r *TradeRequest) { r.Side = "sell"; r.OrderType = "auction" }},
		{"order_type", func(m *envelope.Record, r *TradeRequest) { r.OrderType = "auction"; r.Quantity = 801 }},
		{"order_type", func(m *envelope.Record, r *TradeRequest) { m.Scope[fieldOrderTypes] = nil }},
		{"quantity", func(m *envelope.Record, r *TradeRequest) { r.Quantity = 801; r.LimitPriceMicros = 1 }},
		{"quantity", func(m *envelope.Record, r *TradeRequest) { m.Scope[fieldMaxQuantity] = nil }},
		{"price_window", func(m *envelope.Record, r *TradeRequest) { m.Scope[fieldMinPrice] = nil }},
		{"limit_price", func(m *envelope.Record, r *TradeRequest) { r.LimitPriceMicros = 126 }},
		{"limit_price", func(m *envelope.Record, r *TradeRequest) { r.LimitPriceMicros = 74 }},
		{"", func(m *envelope.Record, r *TradeRequest) { r.LimitPriceMicros = 75; r.Quantity = -5 }},
	}
	for i, tc := range cases {
		m, r := coveringMandate(), coveredOrder()
		tc.edit(m, &r)
		if got := Denial(m, r); got != tc.want {
			t.Errorf("row %d: denial %q, want %q", i, got, tc.want)
		}
	}
}

// TestEvaluateWording: the toolkit's multi-record wording over finance mandates, and a
// mandate's fields are never combined with another's.
func TestEvaluateWording(t *testing.T) {
	a, b := coveringMandate(), coveringMandate()
	a.ID, b.ID = "B-second", "A-first"
	a.Scope[fieldSides] = []string{"sell"}
	b.Scope[fieldInstruments] = []string{"I1"}
	r := coveredOrder()
	r.Side = "buy"
	if v := evaluate([]*envelope.Record{a, b}, r); v.Authorized || v.Reason != "no_matching_authorization:A-first=instrument;B-second=side" {
		t.Errorf("%+v", v)
	}
	if v := evaluate(nil, r); v.Authorized || v.Reason != "no_authorization_record" {
		t.Errorf("%+v", v)
	}
	b.Scope[fieldInstruments] = []string{"I2"}
	if v := evaluate([]*envelope.Record{a, b}, r); !v.Authorized || v.Reason != "authorized:A-first" {
		t.Errorf("%+v", v)
	}
}
