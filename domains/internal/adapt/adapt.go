// Package adapt holds the steps every domain's engine.Domain adapter takes alike, whatever
// its case and request types: recovering the domain's own case and request from the
// domain-neutral values the engine hands back, converting parsed cases to engine cases, and
// scoring a tool call on the ledger through a block. The domain's names stay in its package;
// this package is generic over them.
package adapt

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// Value returns v as a T when it holds a T or a non-nil *T (engine probes carry a domain's
// request either way).
func Value[T any](v any) (T, bool) {
	switch r := v.(type) {
	case T:
		return r, true
	case *T:
		if r != nil {
			return *r, true
		}
	}
	var zero T
	return zero, false
}

// Request is Value for a request that must be a T; anything else is a programming error
// (the engine only hands a domain back the requests it built), so it panics naming what was
// wanted ("a procurement transaction").
func Request[T any](v any, want string) T {
	r, ok := Value[T](v)
	if !ok {
		panic(fmt.Sprintf("request %T is not %s", v, want))
	}
	return r
}

// RequestPointer is Request for a domain that hands its request on by pointer: a *T is
// returned as it is (so what the domain derives from a probe's request is that very request),
// a T as a pointer to a copy.
func RequestPointer[T any](v any, want string) *T {
	if r, ok := v.(*T); ok && r != nil {
		return r
	}
	r := Request[T](v, want)
	return &r
}

// Source returns the domain's case behind an engine case (its Source); a case of another
// domain is a programming error and panics naming the domain.
func Source[C any](c *engine.Case, domain string) C {
	src, ok := c.Source.(C)
	if !ok {
		panic(fmt.Sprintf("case %s is not a %s case", c.ID, domain))
	}
	return src
}

// EngineCases parses a corpus strictly (parse returns each case with the line it starts on)
// and converts its cases to engine cases.
func EngineCases[C any](parse func(name string, data []byte) ([]C, []int, error), toEngine func(c C, line int) *engine.Case, name string, data []byte) ([]*engine.Case, error) {
	cases, lines, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	out := make([]*engine.Case, len(cases))
	for i, c := range cases {
		out[i] = toEngine(c, lines[i])
	}
	return out, nil
}

// ScoreOnLedger scores a tool call on the case's ledger through block `through` (a negative
// through is the case's last block); a ledger that does not replay makes the call invalid.
func ScoreOnLedger[R any](c *engine.Case, through int, ledger func(through int) ([]R, error), score func(ledger []R) engine.ToolScore) engine.ToolScore {
	if through < 0 {
		through = c.LastBlock()
	}
	records, err := ledger(through)
	if err != nil {
		return engine.ToolScore{Decision: engine.Invalid, Detail: err.Error()}
	}
	return score(records)
}
