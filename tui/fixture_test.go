package tui

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// The tests read a real workspace: a scripted run over the built-in corpus (seeded, so the
// same on every machine) imported into a temporary SQLite file by runs.Import. Building it
// takes a moment, so the test binary does it once.

var fixture workspaceFixture

// workspaceFixture is a workspace built once per test binary, on first use, in a temporary
// directory that TestMain removes.
type workspaceFixture struct {
	once  sync.Once
	dir   string
	store *runs.Store
	runID string
	err   error
}

// get builds the workspace the first time: fill writes it into dir and returns its store (also
// when a later step fails, so that it is closed) and the run's id.
func (f *workspaceFixture) get(tb testing.TB, fill func(ctx context.Context, dir string) (*runs.Store, string, error)) (*runs.Store, string) {
	tb.Helper()
	f.once.Do(func() {
		f.dir, f.err = os.MkdirTemp("", "ealscope-tui-")
		if f.err == nil {
			f.store, f.runID, f.err = fill(context.Background(), f.dir)
		}
	})
	if f.err != nil {
		tb.Fatalf("building the test workspace: %v", f.err)
	}
	return f.store, f.runID
}

func (f *workspaceFixture) close() {
	if f.store != nil {
		f.store.Close()
	}
	if f.dir != "" {
		os.RemoveAll(f.dir)
	}
}

// fixtureRun is the fixture workspace: the scripted run over the built-in corpus with
// fixtureSeed, imported.
func fixtureRun(ctx context.Context, dir string) (*runs.Store, string, error) {
	return scriptedWorkspace(ctx, dir, "", fixtureSeed)
}

// scriptedWorkspace writes a scripted run over corpus ("": the built-in one) to dir/run and
// imports it, after the corpus file, into the workspace dir/ws.db: its store and the run's id.
func scriptedWorkspace(ctx context.Context, dir, corpus string, seed int64) (*runs.Store, string, error) {
	run := filepath.Join(dir, "run")
	if err := buildScriptedRun(ctx, run, corpus, seed); err != nil {
		return nil, "", err
	}
	var corpora []string
	if corpus != "" {
		corpora = []string{corpus}
	}
	s, res, err := importRun(ctx, filepath.Join(dir, "ws.db"), []string{run}, corpora)
	if err != nil {
		return nil, "", err
	}
	return s, res[len(res)-1].RunID, nil
}

const fixtureSeed = 7

// buildScriptedRun writes a scripted run over the built-in corpus (or the given corpus file)
// to out.
func buildScriptedRun(ctx context.Context, out, corpus string, seed int64) error {
	return buildDomainRun(ctx, out, "procurement", corpus, seed)
}

// buildDomainRun writes a scripted run of a domain over its built-in corpus (or the given
// corpus file) to out.
func buildDomainRun(ctx context.Context, out, domain, corpus string, seed int64) error {
	st := replay.Settings{Domain: domain, Corpus: replay.BuiltinCorpus, Writer: "scripted", Executor: "builtin",
		WriterRuns: 1, ExecutorRuns: 1, Seed: seed, FaultRate: replay.DefaultFaultRate}
	if corpus != "" {
		st.Corpus = corpus
	}
	opts, err := replay.Prepare(st, nil, replay.RetryPolicy{}, "test")
	if err != nil {
		return err
	}
	opts.Out, opts.Concurrency = out, 4
	_, err = replay.Run(ctx, opts)
	return err
}

// importRun opens a workspace at db and imports run directories (and corpora) into it.
func importRun(ctx context.Context, db string, paths, corpora []string) (*runs.Store, []runs.PathResult, error) {
	s, err := runs.Open(db)
	if err != nil {
		return nil, nil, err
	}
	rep, err := s.Import(ctx, paths, runs.ImportOptions{Corpora: corpora})
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, rep.Results, nil
}

func testStore(t testing.TB) (*runs.Store, string) {
	t.Helper()
	return fixture.get(t, fixtureRun)
}

func TestMain(m *testing.M) {
	code := m.Run()
	fixture.close()
	big.close()
	hostileWS.close()
	closeLabStore()
	for _, f := range demoFixtures {
		f.close()
	}
	os.Exit(code)
}

// formingChain is the fixture's most instructive chain: memory-induced if any, else the one
// forming false authority earliest.
func formingChain(t testing.TB) ChainKey {
	t.Helper()
	s, runID := testStore(t)
	rows, err := s.Chains(context.Background(), runs.ChainFilter{RunID: runID, Forming: true, Sort: runs.SortByFirstFalseAuthority})
	if err != nil || len(rows) == 0 {
		t.Fatalf("no forming chain in the fixture (err %v)", err)
	}
	for _, r := range rows {
		if r.AttributedMemoryInduced > 0 {
			return presentChain(r).Key
		}
	}
	return presentChain(rows[0]).Key
}

func mustCaseKey(t testing.TB, s *runs.Store, k ChainKey) runs.CaseKey {
	t.Helper()
	h, err := s.Chain(context.Background(), k.ID)
	if err != nil {
		t.Fatal(err)
	}
	return h.CaseKey
}
