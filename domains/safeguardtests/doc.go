// Package safeguardtests holds the tests of the safeguard policies (engine/safeguards) that
// run them over real domains: the built-in and generated corpora of every registered domain,
// the multi-party corpora and the domains' shared toolkit. They live here, at the domains
// layer, so that no test of the engine imports a layer above it; the policies' own
// domain-free tests stay beside them in engine/safeguards. The package has no code of its own.
package safeguardtests
