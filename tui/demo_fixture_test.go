package tui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// The demo workspaces: `ealscope demo --domain D` builds a scripted run of each domain over its
// built-in corpus with the demo's seed; these fixtures build the same runs, once per test binary.

// demoSeed is cmd/ealscope's demo seed, so these workspaces hold the chains the demo shows.
const demoSeed = 20261130

var demoDomains = []string{"cybersecurity", "finance", "procurement"}

var demoFixtures = map[string]*workspaceFixture{
	"cybersecurity": {}, "finance": {}, "procurement": {},
}

// demoStore is the demo workspace of a domain: its store and run id.
func demoStore(t testing.TB, domain string) (*runs.Store, string) {
	t.Helper()
	return demoFixtures[domain].get(t, func(ctx context.Context, dir string) (*runs.Store, string, error) {
		run := filepath.Join(dir, "run")
		if err := buildDomainRun(ctx, run, domain, "", demoSeed); err != nil {
			return nil, "", err
		}
		s, res, err := importRun(ctx, filepath.Join(dir, "ws.db"), []string{run}, nil)
		if err != nil {
			return s, "", err
		}
		return s, res[len(res)-1].RunID, nil
	})
}

// demoChain is the chain `ealscope demo` opens for the domain.
func demoChain(t testing.TB, domain string) ChainKey {
	t.Helper()
	s, runID := demoStore(t, domain)
	k, err := MostInstructive(context.Background(), s, runID)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
