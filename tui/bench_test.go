package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/runs"
)

// Benchmarks on a workspace holding a scripted run over 2,000 generated cases (all eight
// conditions, 16,000 chains). Building it takes a while, so it is made once per test binary
// and only when a benchmark asks for it. Figures: docs/BENCHMARKS.md, "TUI".

var big workspaceFixture

func bigStore(b *testing.B) (*runs.Store, string) {
	b.Helper()
	// EALSCOPE_TUI_BENCH_DB names an existing workspace to measure instead (its first run),
	// e.g. one imported from a larger run than the benchmarks would build.
	if db := os.Getenv("EALSCOPE_TUI_BENCH_DB"); db != "" {
		return big.get(b, func(ctx context.Context, _ string) (*runs.Store, string, error) {
			s, err := runs.Open(db)
			if err != nil {
				return nil, "", err
			}
			rs, err := s.Runs(ctx)
			if err != nil || len(rs) == 0 {
				s.Close()
				return nil, "", fmt.Errorf("%s: no run to measure (%v)", db, err)
			}
			return s, rs[0].RunID, nil
		})
	}
	// The workspace lives until the process ends (see TestMain).
	return big.get(b, func(ctx context.Context, dir string) (*runs.Store, string, error) {
		corpus := filepath.Join(dir, "generated.jsonl")
		data, err := procurement.GenerateJSONL(2000, 1)
		if err != nil {
			return nil, "", err
		}
		if err := os.WriteFile(corpus, data, 0o644); err != nil {
			return nil, "", err
		}
		return scriptedWorkspace(ctx, dir, corpus, 11)
	})
}

// BenchmarkFirstFrame: from nothing to the first complete chain-view frame of the most
// instructive chain: New, Init, the chain and block queries, View.
func BenchmarkFirstFrame(b *testing.B) {
	s, runID := bigStore(b)
	ctx := context.Background()
	k, err := MostInstructive(ctx, s, runID)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		m := benchStart(b, Options{Store: s, Dark: ptr(true), Start: Start{Chain: &k, Block: -1}})
		if len(m.chain.blocks) == 0 {
			b.Fatal("no block loaded")
		}
		_ = m.View()
	}
}

// BenchmarkChainsList: the chains screen of the 16,000-chain run, query to frame.
func BenchmarkChainsList(b *testing.B) {
	s, runID := bigStore(b)
	for b.Loop() {
		m := benchStart(b, Options{Store: s, Dark: ptr(true), Start: Start{RunID: runID}})
		if len(m.chains.all) == 0 {
			b.Fatal("no chains")
		}
		_ = m.View()
	}
}

// BenchmarkBlockStep: one → on a cached block (Update + View), the common case while
// stepping back and forth.
func BenchmarkBlockStep(b *testing.B) {
	m := benchChain(b)
	right, left := keyPress("right"), keyPress("left")
	i := 0
	for b.Loop() {
		k := right
		if i%2 == 1 {
			k = left
		}
		i++
		next, _ := m.Update(k)
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkBlockStepUncached: one → onto a block not seen yet: Update, the block's
// queries (run as the program would, in its command), then View.
func BenchmarkBlockStepUncached(b *testing.B) {
	m := benchChain(b)
	for b.Loop() {
		m.chain.blocks = map[int]BlockDetail{m.chain.block: m.chain.blocks[m.chain.block]}
		k := keyPress("right")
		if m.chain.block == m.chain.lastBlock() {
			k = keyPress("left")
		}
		next, cmd := m.Update(k)
		m = settle(b, next.(Model), cmd)
		_ = m.View()
	}
}

// benchStart is the program as it starts on a 120×40 terminal: New, the first window size,
// and the commands of Init run until the model settles.
func benchStart(b *testing.B, opts Options) Model {
	b.Helper()
	m, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	next, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	return settle(b, next.(Model), next.(Model).Init())
}

func benchChain(b *testing.B) Model {
	b.Helper()
	s, runID := bigStore(b)
	k, err := MostInstructive(context.Background(), s, runID)
	if err != nil {
		b.Fatal(err)
	}
	m := benchStart(b, Options{Store: s, Dark: ptr(true), Start: Start{Chain: &k, Block: 0}})
	for range m.chain.lastBlock() + 1 { // warm the cache: every block visited once
		next, cmd := m.Update(keyPress("right"))
		m = settle(b, next.(Model), cmd)
	}
	return m
}
