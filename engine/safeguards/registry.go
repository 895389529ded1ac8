// Package safeguards holds the safeguard policies of the lab as pure values (engine.Policy):
// EAL-Bench's own (docs/FORMATS.md 8.1, the cited-source authority gate) and the ones later work
// proposes (MemTX's commit discipline, PPMF's provenance firewall). Each policy is one file;
// docs/POLICIES.md states each one's rules and their source. Nothing here does I/O: a policy
// reads the case, the memory and the request, and the domain's role interfaces.
package safeguards

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// constructors lists every policy the lab knows, in the order tables show them.
var constructors = []func() engine.Policy{
	SourceAuthorityGate,
	MemTX,
	PPMF,
}

// byName are the policies chosen only by name: audience-bound admission is measured per
// request (who asks, in which channel) by its own lab arms, not per memory version as the
// policies above, so it is not among every policy's.
var byName = map[string]func() engine.Policy{
	AudienceBoundID: AudienceBound,
}

// All returns a fresh value of every known policy, in table order.
func All() []engine.Policy {
	out := make([]engine.Policy, 0, len(constructors))
	for _, c := range constructors {
		out = append(out, c())
	}
	return out
}

// IDs lists the known policy ids, in table order.
func IDs() []string {
	var ids []string
	for _, p := range All() {
		ids = append(ids, p.ID)
	}
	return ids
}

// Lookup finds policies by id; an unknown id is an error naming the known ones. No ids
// means every policy.
func Lookup(ids ...string) ([]engine.Policy, error) {
	if len(ids) == 0 {
		return All(), nil
	}
	known := map[string]engine.Policy{}
	for _, p := range All() {
		known[p.ID] = p
	}
	for id, c := range byName {
		known[id] = c()
	}
	var out []engine.Policy
	seen := map[string]bool{}
	for _, id := range ids {
		p, ok := known[id]
		if !ok {
			names := IDs()
			for id := range byName {
				names = append(names, id)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("unknown policy %q (known: %s)", id, strings.Join(names, ", "))
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, p)
		}
	}
	return out, nil
}
