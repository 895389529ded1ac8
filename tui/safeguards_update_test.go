package tui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// labChainApp opens the lab workspace's laundered chain at its first false-authority block.
func labChainApp(t *testing.T, w, h int) (Model, string, string) {
	t.Helper()
	s, runID := labStore(t)
	k, invented := launderedChain(t)
	m, err := New(Options{Store: s, Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	return drive(t, m, w, h), runID, invented
}

func pressKeys(t *testing.T, m Model, msgs ...tea.KeyPressMsg) Model {
	t.Helper()
	for _, k := range msgs {
		next, cmd := m.Update(k)
		m = settle(t, next.(Model), cmd)
	}
	return m
}

// The pane follows the chain view's block keys, esc closes it at the block it showed, and
// every line of every frame fits the terminal at several sizes.
func TestSafeguardsPaneBlocksAndBack(t *testing.T) {
	m, runID, invented := labChainApp(t, 120, 40)
	fa := m.chain.firstFalse()
	m = pressKeys(t, m, keyPress("S"))
	p := m.chain.safeguards
	if p == nil || p.data == nil || p.block != fa {
		t.Fatalf("S did not open an evaluated pane at block %d (pane %+v)", fa, p)
	}
	gate := p.data.Policies[p.sel]
	var removed *SafeguardRecord
	for _, b := range gate.Blocks {
		if b.Index != fa {
			continue
		}
		for i, r := range b.Records {
			if r.AuthorizationID == invented {
				removed = &b.Records[i]
			}
		}
	}
	if removed == nil || removed.Kept || len(removed.Sources) == 0 || removed.Sources[0].Capability != "cannot grant" {
		t.Fatalf("at block %d the gate's decision on %s is %+v; want it removed for citing a turn whose speaker cannot grant", fa, invented, removed)
	}
	m = pressKeys(t, m, tea.KeyPressMsg{Code: tea.KeyRight})
	if m.chain.block != fa+1 || m.chain.safeguards.block != fa+1 {
		t.Errorf("→ moved the chain to %d and the pane to %d; want both at %d", m.chain.block, m.chain.safeguards.block, fa+1)
	}
	if !strings.Contains(frame(m, runID), fmt.Sprintf("safeguards · block %d", fa+1)) {
		t.Errorf("the pane's title does not follow the block:\n%s", frame(m, runID))
	}
	m = pressKeys(t, m, keyPress("f"))
	if m.chain.safeguards.block != fa {
		t.Errorf("f left the pane at block %d, want %d", m.chain.safeguards.block, fa)
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 20}, {200, 50}} {
		next, _ := m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		mm := next.(Model)
		for i, l := range strings.Split(mm.Render(), "\n") {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d cells wide", size[0], size[1], i, w)
			}
		}
	}
	m = pressKeys(t, m, keyPress("?"))
	if out := frame(m, runID); !strings.Contains(out, "keys · safeguards pane") || !strings.Contains(out, "focus the next/previous policy") || !strings.Contains(out, "cancel a running evaluation") {
		t.Errorf("? shows no safeguards keys:\n%s", out)
	}
	m = pressKeys(t, m, keyPress("x")) // closes the help sheet only
	m = pressKeys(t, m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.chain.safeguards != nil || m.top() != screenChain || m.chain.block != fa {
		t.Errorf("esc: pane %v, screen %v, block %d; want the chain view at block %d", m.chain.safeguards != nil, m.top(), m.chain.block, fa)
	}
}

// esc while an evaluation runs cancels it through its context: nothing half-made is shown
// or stored, and the pane says so.
func TestSafeguardsPaneCancel(t *testing.T) {
	s, _ := labStore(t)
	lab := newWorkspaceLab(s, nil)
	k, _ := launderedChain(t)
	st := NewStyles(NewPalette(true, true))
	keys := DefaultKeyMap()
	c := &common{styles: &st, keys: &keys, width: 120, height: 40}
	// A chain the other tests never evaluate: the first typed chain that is not the
	// laundered one.
	rows, err := s.Chains(context.Background(), runs.ChainFilter{RunID: k.RunID})
	if err != nil {
		t.Fatal(err)
	}
	var other ChainKey
	for _, r := range rows {
		if r.Architecture == "typed" && r.Key != k.ID && r.Memories > 0 {
			other = presentChain(r).Key
			break
		}
	}
	before, _ := s.SafeguardsForChain(context.Background(), other.ID)
	p := newSafeguardsPanel(c, lab, nil, other, nil, 0)
	cmd := p.evaluate()
	if !p.running || p.back() {
		t.Fatal("esc while running must cancel, not close")
	}
	for _, msg := range runCmd(cmd) {
		if next := p.Update(msg); next != nil {
			for _, m2 := range runCmd(next) {
				p.Update(m2)
			}
		}
	}
	if p.running || !strings.Contains(p.note, "cancelled") {
		t.Errorf("after cancel: running %v, note %q", p.running, p.note)
	}
	after, _ := s.SafeguardsForChain(context.Background(), other.ID)
	if len(after) != len(before) {
		t.Errorf("a cancelled evaluation stored %d policy rows (had %d)", len(after), len(before))
	}
}

// runCmd runs a command and the batches it returns, collecting the messages (terminal ones
// dropped).
func runCmd(cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	drainCmds(cmd, func() bool { return true }, func(msg tea.Msg) (tea.Cmd, bool) {
		if !isTerminalMsg(msg) {
			out = append(out, msg)
		}
		return nil, false
	})
	return out
}

// The run screen: S on the chains list, r evaluates every writer chain. A cancelled batch
// keeps the chains that finished; the finished table shows the gate stopping chains and
// refusing legitimate requests, with intervals, and "n/a" where it does not apply.
func TestSafeguardsRunScreen(t *testing.T) {
	s, runID := labRunStore(t)
	lab := newWorkspaceLab(s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	before, _, _ := lab.StoredRun(context.Background(), runID)
	_, err := lab.EvaluateRun(ctx, runID, "builtin", func(phase string, done, total int) {
		if phase == "chains" && done >= 2 {
			cancel()
		}
	})
	cancel()
	if err == nil || ctx.Err() == nil {
		t.Fatalf("a cancelled batch returned %v", err)
	}
	kept, ok, err := lab.StoredRun(context.Background(), runID)
	if err != nil || !ok || kept.Chains <= before.Chains || kept.Chains >= kept.Planned {
		t.Fatalf("after cancelling: %d of %d chains stored (had %d, err %v); want the finished ones kept and not all",
			kept.Chains, kept.Planned, before.Chains, err)
	}

	m, err := New(Options{Store: s, Dark: ptr(true), NoColor: true, Start: Start{RunID: runID}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 140, 40)
	m = pressKeys(t, m, keyPress("S"))
	if m.top() != screenSafeguards || m.safeguards.table == nil || m.safeguards.table.Chains != kept.Chains {
		t.Fatalf("S on the chains list: screen %v, table %+v; want the stored %d chains", m.top(), m.safeguards.table, kept.Chains)
	}
	m = pressKeys(t, m, keyPress("r"))
	tb := m.safeguards.table
	if tb == nil || tb.Chains <= kept.Chains {
		t.Fatalf("r did not evaluate the run: %+v", tb)
	}
	var gate *SafeguardRow
	for i, r := range tb.Rows {
		if r.Policy == "source_authority_gate" && r.Condition == "incremental_typed" {
			gate = &tb.Rows[i]
		}
	}
	if gate == nil || gate.Prevented == 0 || gate.ChainsStopped == 0 || !gate.Unauthorized.Estimable || !gate.Unauthorized.HasInterval ||
		gate.Unauthorized.After >= gate.Unauthorized.Before || gate.Formation.After >= gate.Formation.Before {
		t.Fatalf("the gate under incremental_typed: %+v; want prevented actions and lower unauthorized and formation rates with intervals", gate)
	}
	out := frame(m, runID)
	wantAll(t, "run screen", out, "safeguards · run RUNID", "source_authority_gate", "incremental_typed", "n/a", "95% CI", "seed 20260821, 10000 draws")
	for i, l := range strings.Split(m.Render(), "\n") {
		if w := ansi.StringWidth(l); w > 140 {
			t.Errorf("line %d is %d cells wide", i, w)
		}
	}
	m = pressKeys(t, m, keyPress("esc"))
	if m.top() != screenChains {
		t.Errorf("esc left the run screen for %v, want the chains list", m.top())
	}
}

// `:safeguards` opens the pane in the chain view and the run's screen in the chains list;
// the lab's keys are remappable by name like every other action.
func TestSafeguardsCommandAndRemap(t *testing.T) {
	m, runID, _ := labChainApp(t, 120, 40)
	m = pressKeys(t, m, keyPress(":"))
	for _, r := range "safeguards" {
		m = pressKeys(t, m, keyPress(string(r)))
	}
	m = pressKeys(t, m, keyPress("enter"))
	if m.chain.safeguards == nil {
		t.Fatalf(":safeguards in the chain view opened no pane:\n%s", frame(m, runID))
	}
	m = pressKeys(t, m, keyPress("esc"), keyPress("esc"))
	if m.top() != screenChains {
		t.Fatalf("esc esc from the pane ended on %v, want the chains list", m.top())
	}
	m = pressKeys(t, m, keyPress(":"))
	for _, r := range "safeguards" {
		m = pressKeys(t, m, keyPress(string(r)))
	}
	m = pressKeys(t, m, keyPress("enter"))
	if m.top() != screenSafeguards || m.safeguards.runID != runID {
		t.Fatalf(":safeguards in the chains list: screen %v run %q", m.top(), m.safeguards.runID)
	}

	km := DefaultKeyMap()
	if err := km.Remap(map[string][]string{"lab.open": {"L"}, "executor": {"E"}}); err != nil {
		t.Fatal(err)
	}
	if got := km.Lab.Open.Keys(); len(got) != 1 || got[0] != "L" {
		t.Errorf("lab.open = %v", got)
	}
	if got := km.Lab.Executor.Keys(); len(got) != 1 || got[0] != "E" {
		t.Errorf("executor = %v", got)
	}
	// S is no other action of the screens it works on, so it never shadows one.
	def := DefaultKeyMap()
	for name, b := range def.actions() {
		if !strings.Contains(name, ".") || name == "lab.open" || strings.HasPrefix(name, "annotate.") || strings.HasPrefix(name, "present.") {
			continue
		}
		for _, k := range b.Keys() {
			if k == "S" {
				t.Errorf("%s is bound to S too", name)
			}
		}
	}
}

// A model executor that fails (a real loopback server answering 400) yields provider errors:
// every pair is "not estimable", never a prevented action or a refusal.
func TestSafeguardsModelProviderErrorsAreNotEstimable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"model not loaded"}}`))
	}))
	defer srv.Close()
	s, runID := labRunStore(t)
	rows, err := s.Chains(context.Background(), runs.ChainFilter{RunID: runID, Forming: true})
	if err != nil {
		t.Fatal(err)
	}
	var k *ChainKey
	for _, r := range rows {
		if r.Architecture == "typed" {
			key := presentChain(r).Key
			k = &key
			break
		}
	}
	if k == nil {
		t.Fatal("no typed forming chain")
	}
	models := &replay.Config{Models: map[string]replay.Model{"broken": {Name: "broken", BaseURL: srv.URL, Model: "m", Concurrency: 2, TimeoutS: 5}}}
	m, err := New(Options{Store: s, Models: models, Dark: ptr(true), NoColor: true, Start: Start{Chain: k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 120, 40)
	m = pressKeys(t, m, keyPress("S"), keyPress("x"), keyPress("r"))
	p := m.chain.safeguards
	if p == nil || p.data == nil || p.err != nil {
		t.Fatalf("pane %+v", p)
	}
	if p.data.Executor != "broken" {
		t.Errorf("evaluated with %q, want the configured model", p.data.Executor)
	}
	for _, q := range p.data.Policies {
		if q.NotApplicable != "" {
			continue
		}
		if q.Trials == 0 || q.NotEstimable != q.Trials || q.Prevented != 0 || q.Refused != 0 {
			t.Errorf("%s: %d pairs, %d not estimable, %d prevented, %d refused; want every pair not estimable", q.ID, q.Trials, q.NotEstimable, q.Prevented, q.Refused)
		}
	}
	if out := frame(m, runID); !strings.Contains(out, "? not estimable") {
		t.Errorf("the pane shows no not-estimable pair:\n%s", out)
	}
}
