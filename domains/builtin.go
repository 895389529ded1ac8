package domains

import "github.com/ealscope/ealscope/engine"

// BuiltinCases is the registered domain id with its embedded corpus, parsed: what
// `run --builtin` runs and what the tests of the packages above the domains start from.
func BuiltinCases(id string) (engine.Domain, []*engine.Case, error) {
	d, err := Get(id)
	if err != nil {
		return nil, nil, err
	}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		return nil, nil, err
	}
	return d, cases, nil
}
