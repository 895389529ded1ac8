// Package domains is the registry of authorization domains: one table from a domain id to the
// engine.Domain that parses, replays, scores and renders it.
package domains

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/domains/cybersecurity"
	"github.com/ealscope/ealscope/domains/finance"
	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
)

var registry = map[string]engine.Domain{
	procurement.DomainID:   procurement.Domain{},
	cybersecurity.DomainID: cybersecurity.Domain{},
	finance.DomainID:       finance.Domain{},
}

// Get returns the domain with the given id.
func Get(id string) (engine.Domain, error) {
	d, ok := registry[id]
	if !ok {
		return nil, fmt.Errorf("unknown domain %q (known: %s)", id, strings.Join(IDs(), ", "))
	}
	return d, nil
}

// IDs lists the registered domain ids, sorted.
func IDs() []string {
	out := make([]string, 0, len(registry))
	for id := range registry {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
