// Package domains is the registry of authorization domains: one table from a domain id to the
// engine.Domain that parses, replays, scores and renders it. It is the one place outside a
// domain's own package that names that package.
package domains

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ealscope/ealscope/domains/cybersecurity"
	"github.com/ealscope/ealscope/domains/finance"
	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
)

var (
	mu       sync.RWMutex
	registry = map[string]engine.Domain{
		procurement.DomainID:   procurement.Domain{},
		cybersecurity.DomainID: cybersecurity.Domain{},
		finance.DomainID:       finance.Domain{},
	}
)

// Default is the domain commands use when none is named.
const Default = procurement.DomainID

// Register adds a domain to the table (a domain defined elsewhere, such as one a test
// declares). Registering an id twice is an error.
func Register(d engine.Domain) error {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := registry[d.ID()]; ok {
		return fmt.Errorf("domain %q is already registered", d.ID())
	}
	registry[d.ID()] = d
	return nil
}

// Get returns the domain with the given id.
func Get(id string) (engine.Domain, error) {
	mu.RLock()
	d, ok := registry[id]
	mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown domain %q (known: %s)", id, strings.Join(IDs(), ", "))
	}
	return d, nil
}

// IDs lists the registered domain ids, sorted.
func IDs() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(registry))
	for id := range registry {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Generator returns the domain's seeded case generator, or an error naming the domains that
// have one.
func Generator(id string) (engine.CaseGenerator, error) {
	d, err := Get(id)
	if err != nil {
		return nil, err
	}
	if g, ok := d.(engine.CaseGenerator); ok {
		return g, nil
	}
	var with []string
	for _, k := range IDs() {
		if dd, _ := Get(k); dd != nil {
			if _, ok := dd.(engine.CaseGenerator); ok {
				with = append(with, k)
			}
		}
	}
	return nil, fmt.Errorf("domain %q has no case generator (domains with one: %s)", id, strings.Join(with, ", "))
}
