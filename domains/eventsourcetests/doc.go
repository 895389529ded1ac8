// Package eventsourcetests holds the tests of the event-sourcing reducer (engine/eventsource)
// that replay the registered domains' built-in cases: canonical events, the reducer's
// acceptance and refusals, and its benchmark. They live here, at the domains layer, so that
// no test of the engine imports a layer above it; the reducer's domain-free tests stay beside
// it in engine/eventsource. The package has no code of its own.
package eventsourcetests
