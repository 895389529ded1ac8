// Package engine holds the pure logic of authorization memory: the Domain roles, the oracle
// rule, fidelity, formation, scoring, metrics, attribution and agreement. Canonical JSON, content
// hashes and id recipes byte-identical to EAL-Bench's Python live in engine/pyjson. It performs
// no I/O and imports nothing of ours but engine/pyjson.
package engine
