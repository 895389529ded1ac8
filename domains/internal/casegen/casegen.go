// Package casegen holds what the domains' seeded case generators share: drawing n cases in
// order (so the first k cases of n are those of k), streaming them without holding them all,
// and the check every generated case must pass, that the oracle decides each probe as its
// scope says (an in-scope probe is authorized, an out-of-scope one is not).
package casegen

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ealscope/ealscope/engine"
)

// Take returns the cases next(1), ..., next(n), stopping at the first error.
func Take[T any](n int, next func(i int) (T, error)) ([]T, error) {
	out := make([]T, 0, max(n, 0))
	err := Each(n, next, func(_ int, c T) error {
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Each hands next(i) to use for i = 1..n, one at a time, so memory does not grow with n.
func Each[T any](n int, next func(i int) (T, error), use func(i int, c T) error) error {
	if n < 0 {
		return fmt.Errorf("generate: negative case count %d", n)
	}
	for i := 1; i <= n; i++ {
		c, err := next(i)
		if err != nil {
			return err
		}
		if err := use(i, c); err != nil {
			return err
		}
	}
	return nil
}

// Bytes collects what write streams (a corpus written one case at a time) into memory.
func Bytes(write func(w io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// CheckScopes runs the oracle on every probe of a case at its final block: an in-scope probe
// must be authorized and an out-of-scope one denied.
func CheckScopes(d engine.Domain, c *engine.Case) error {
	verdicts, err := engine.OracleProbes(d, c, -1)
	if err != nil {
		return err
	}
	for _, v := range verdicts {
		if want := v.Probe.Scope == "in_scope"; v.Verdict.Authorized != want {
			return fmt.Errorf("probe %s (%s): oracle says authorized=%v (%s)", v.Probe.ID, v.Probe.Scope, v.Verdict.Authorized, v.Verdict.Reason)
		}
	}
	return nil
}
