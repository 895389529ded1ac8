package finance

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// FuzzParseCase: the corpus reader never panics; what it accepts replays at every block and
// renders.
func FuzzParseCase(f *testing.F) {
	_, data := Domain{}.BuiltinCorpus()
	one, err := GenerateCorpus(1, 3)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(one)
	f.Add(data[:2000])
	f.Add([]byte(`{"schema_version":"finance_redesign_corpus_v1","corpus_version":"x","release_id":"r","mechanism":"m","split":"s","cases":[{}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range (Domain{}).ParseEach("fuzz.json", b) {
			if e.Err != nil {
				continue
			}
			for i := range e.Case.Blocks {
				if _, err := (Domain{}).Replay(e.Case, i); err != nil {
					t.Fatalf("accepted case does not replay at block %d: %v", i, err)
				}
				_ = Domain{}.RenderBlock(e.Case, i)
			}
			for _, p := range e.Case.Probes {
				_ = Domain{}.RenderRequest(p)
			}
		}
	})
}

// FuzzParseTypedPayload: the typed parser never panics, and what it accepts serialises back
// to a payload it accepts with the same canonical JSON (flat is a fixed point).
func FuzzParseTypedPayload(f *testing.F) {
	f.Add([]byte(`{"schema_version":"5","authorizations":[]}`))
	f.Add([]byte(`{"schema_version":"5","authorizations":[{"authorization_id":"M","issuer":"portfolio_mandate_officer","grantee":"portfolio_execution_agent","effect":"permit_portfolio_order","action":"place_portfolio_order","status":"active","valid_from":"2026-10-01T00:00:00Z","valid_until":"2027-02-01T00:00:00Z","account_id":"A","strategy_ids":"S","instrument_ids":"I1 | I2","sides":"buy","order_types":"limit","max_quantity":800,"min_limit_price_micros":75,"max_limit_price_micros":125,"settlement_currency":"USD","supersedes":"none","source_turn_ids":"src_a | src_b"}]}`))
	f.Add([]byte(`{"schema_version":"5","authorizations":[{"authorization_id":"M","issuer":"portfolio_mandate_officer","grantee":"portfolio_execution_agent","effect":"permit_portfolio_order","action":"place_portfolio_order","status":"active","valid_from":"2026-10-01T00:00:00Z","valid_until":"2027-02-01T00:00:00Z","scope":{"account_id":"A","strategy_ids":["S"],"instrument_ids":["I"],"sides":["buy"],"order_types":["limit"],"max_quantity":8,"min_limit_price_micros":0,"max_limit_price_micros":1,"settlement_currency":"USD"},"supersedes":null,"source_turn_ids":["src_a"]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if records, ok := ealtest.TypedRoundTrip(t, b, ParseTypedPayload, TypedPayloadOf); ok {
			_ = FaithfulTextOf(records)
		}
	})
}
