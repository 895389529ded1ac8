package tui

// The safeguards pane of the chain view (docs/SAFEGUARDS.md): `S` opens it over the panes. A
// list of the lab's policies; for the focused one, what it did to the chain's formation and
// trials, and at the block shown the records it withheld and why (the turns they cite, who
// said them), MemTX's lifecycle state and PPMF's trust per record, each probe's outcome behind
// the written and behind the gated memory, and the gated memory against the written one.
// The evaluation is stored by the lab; the pane reads it, and runs it (built-in executor)
// when the chain has none yet, with progress; esc cancels, keeping the stored one.

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/replay"
)

// SafeguardLab is what the safeguards pane and screen need from the lab: stored evaluations
// and the evaluation itself (which stores what it computes). safeguards_lab.go implements it
// over the workspace and replay's lab.
type SafeguardLab interface {
	// StoredChain is the chain's stored evaluation (ok false: none yet).
	StoredChain(ctx context.Context, key ChainKey) (c SafeguardChain, ok bool, err error)
	// EvaluateChain applies every policy to the chain and re-runs the executor ("builtin" or
	// a configured model's name) behind each gated memory, storing the result.
	EvaluateChain(ctx context.Context, key ChainKey, executor string, progress LabProgress) (SafeguardChain, error)
	// StoredRun is the run's stored table (ok false: no chain evaluated yet).
	StoredRun(ctx context.Context, runID string) (t SafeguardTable, ok bool, err error)
	// EvaluateRun evaluates every chain of the run, storing each as it finishes.
	EvaluateRun(ctx context.Context, runID, executor string, progress LabProgress) (SafeguardTable, error)
	// StoredAudience is the run's stored audience lab (ok false: never run; a table saying
	// not applicable when the run has no audience sidecar).
	StoredAudience(ctx context.Context, runID string) (t AudienceTable, ok bool, err error)
	// EvaluateAudience runs the audience lab on the run and stores it.
	EvaluateAudience(ctx context.Context, runID, executor string, progress LabProgress) (AudienceTable, error)
}

// LabProgress reports a running evaluation: its phase ("reading chains", "trials",
// "chains") and done of total in that phase.
type LabProgress func(phase string, done, total int)

// labExecutors are the executors an evaluation may use: the built-in one, then the config
// file's models by name.
func labExecutors(models *replay.Config) []string {
	out := []string{"builtin"}
	if models != nil {
		names := make([]string, 0, len(models.Models))
		for n := range models.Models {
			names = append(names, n)
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out
}

// safeguardsPanel is a plain struct owned by the chain screen (not a nested tea.Model).
type safeguardsPanel struct {
	c      *common
	lab    SafeguardLab
	models *replay.Config
	chain  ChainKey
	// order is the domain schema's field order, for the memory diff.
	order []string
	block int

	data    *SafeguardChain
	loading bool
	sel     int
	picked  bool
	scroll  int
	exec    int

	labTask
}

func newSafeguardsPanel(c *common, lab SafeguardLab, models *replay.Config, chain ChainKey, order []string, block int) *safeguardsPanel {
	return &safeguardsPanel{c: c, lab: lab, models: models, chain: chain, order: order, block: block, loading: true}
}

// owner addresses the panel's messages: one chain.
func (p *safeguardsPanel) owner() string { return fmt.Sprint("chain ", int64(p.chain.ID)) }

type safeguardsLoadedMsg struct {
	owner string
	data  SafeguardChain
	ok    bool
	err   error
}

func loadSafeguardsCmd(ctx context.Context, lab SafeguardLab, owner string, key ChainKey) tea.Cmd {
	return func() tea.Msg {
		d, ok, err := lab.StoredChain(ctx, key)
		return safeguardsLoadedMsg{owner: owner, data: d, ok: ok, err: err}
	}
}

func (p *safeguardsPanel) Init() tea.Cmd {
	return loadSafeguardsCmd(p.c.lifetime(), p.lab, p.owner(), p.chain)
}

// evaluate starts the lab on this chain with the chosen executor.
func (p *safeguardsPanel) evaluate() tea.Cmd {
	if p.running {
		return nil
	}
	lab, key, exec := p.lab, p.chain, labExecutors(p.models)[p.exec]
	return p.start(p.c.lifetime(), p.owner(), func(ctx context.Context, progress LabProgress) (any, error) {
		return lab.EvaluateChain(ctx, key, exec, progress)
	})
}

func (p *safeguardsPanel) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case safeguardsLoadedMsg:
		if msg.owner != p.owner() {
			return nil
		}
		p.loading = false
		if msg.err != nil {
			p.err = msg.err
			return nil
		}
		if !msg.ok {
			if p.seq > 0 { // after a cancelled evaluation: wait for r
				return nil
			}
			p.note = "not evaluated yet: running every policy with the " + labExecutors(p.models)[p.exec] + " executor"
			return p.evaluate()
		}
		p.data = &msg.data
		p.sel = p.focusPolicy()
	case labProgressMsg:
		if msg.owner != p.owner() || msg.seq != p.seq {
			return nil
		}
		return p.progressed(msg)
	case labDoneMsg:
		if msg.owner != p.owner() || msg.seq != p.seq {
			return nil
		}
		p.running, p.cancel = false, nil
		switch {
		case msg.cancelled:
			p.note = "cancelled: the stored evaluation (if any) is unchanged"
			return loadSafeguardsCmd(p.c.lifetime(), p.lab, p.owner(), p.chain)
		case msg.err != nil:
			p.err = msg.err
		default:
			d := msg.result.(SafeguardChain)
			p.data, p.note = &d, ""
			p.sel = p.focusPolicy()
		}
	}
	return nil
}

// focusPolicy keeps the selection across reloads; the first time, it focuses the first
// policy that changes the chain (what the pane is opened for).
func (p *safeguardsPanel) focusPolicy() int {
	if p.data == nil {
		return 0
	}
	if !p.picked {
		p.picked = true
		for i, q := range p.data.Policies {
			if q.Prevented > 0 || q.FirstFalseBefore != q.FirstFalseAfter {
				return i
			}
		}
	}
	return clamp(p.sel, 0, max(len(p.data.Policies)-1, 0))
}

// back handles esc: cancel a running evaluation, else close the pane (close = true).
func (p *safeguardsPanel) back() (close bool) {
	if p.running && p.cancel != nil {
		p.cancel()
		p.note = "cancelling…"
		return false
	}
	return true
}

func (p *safeguardsPanel) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	l, k, lab := &p.c.keys.List, &p.c.keys.Chain, &p.c.keys.Lab
	n := 0
	if p.data != nil {
		n = len(p.data.Policies)
	}
	switch {
	case key.Matches(msg, l.Down), key.Matches(msg, k.Down):
		p.sel, p.scroll = clamp(p.sel+1, 0, max(n-1, 0)), 0
	case key.Matches(msg, l.Up), key.Matches(msg, k.Up):
		p.sel, p.scroll = clamp(p.sel-1, 0, max(n-1, 0)), 0
	case key.Matches(msg, l.HalfDown):
		p.scroll = min(p.scroll+max(p.c.height/3, 1), p.maxScroll())
	case key.Matches(msg, l.HalfUp):
		p.scroll = max(p.scroll-max(p.c.height/3, 1), 0)
	case key.Matches(msg, l.Top):
		p.scroll = 0
	case key.Matches(msg, lab.Executor):
		if !p.running {
			p.exec = (p.exec + 1) % len(labExecutors(p.models))
			p.note = "executor: " + sanitizeLine(labExecutors(p.models)[p.exec]) + " (r evaluates with it)"
		}
	case key.Matches(msg, lab.Run):
		return p.evaluate()
	case key.Matches(msg, k.Copy):
		if text := p.copyText(); text != "" {
			p.note = "copied the policy's decisions at block " + fmt.Sprint(p.block)
			return tea.SetClipboard(text)
		}
	}
	return nil
}

// maxScroll is the last first line of the focused policy's detail that still fills the pane
// (the detail drawn as View draws it at the screen's size).
func (p *safeguardsPanel) maxScroll() int {
	q := p.policy()
	if q == nil {
		return 0
	}
	w, h := p.c.width-2, max(p.c.height-footerHeight-1, 4)-2
	if w >= 90 {
		w = w - clamp(w/3, 30, 44) - 3
	} else {
		h -= 3*len(p.data.Policies) + 1 // the list sits above the detail
	}
	n := len(policyDetailLines(p.c.styles, p.chain.CaseID, p.order, *q, p.block, w))
	return max(n-max(h-len(p.statusLines(w)), 1), 0)
}

// policy is the focused policy (nil before the evaluation arrives).
func (p *safeguardsPanel) policy() *SafeguardPolicy {
	if p.data == nil || p.sel >= len(p.data.Policies) {
		return nil
	}
	return &p.data.Policies[p.sel]
}

// copyText is the focused policy at the block as plain text.
func (p *safeguardsPanel) copyText() string {
	q := p.policy()
	if q == nil {
		return ""
	}
	st := NewStyles(NewPalette(true, true))
	lines := policyDetailLines(&st, p.chain.CaseID, p.order, *q, p.block, 200)
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return strings.Join(lines, "\n")
}

// View draws the pane in w×h cells: the policy list beside the focused policy's detail, or
// stacked when the terminal is narrow.
func (p *safeguardsPanel) View(w, h int) string {
	st := p.c.styles
	title := fmt.Sprintf("safeguards · block %d · executor %s", p.block, sanitizeLine(labExecutors(p.models)[p.exec]))
	chosen := labExecutors(p.models)[p.exec]
	switch {
	case p.running:
		title = fmt.Sprintf("safeguards · block %d · evaluating with %s…", p.block, sanitizeLine(chosen))
	case p.data != nil && p.data.Executor != "" && p.data.Executor != chosen:
		// What is shown was evaluated with another executor than the one r would run now.
		title = fmt.Sprintf("safeguards · block %d · evaluated with %s (r runs %s)", p.block, sanitizeLine(p.data.Executor), sanitizeLine(chosen))
	case p.data != nil && p.data.Executor != "":
		title = fmt.Sprintf("safeguards · block %d · evaluated with %s", p.block, sanitizeLine(p.data.Executor))
	}
	inner := w - 2
	status := p.statusLines(inner)
	var body []string
	switch {
	case p.data == nil:
		body = status
	default:
		var detail []string
		if q := p.policy(); q != nil {
			detail = policyDetailLines(st, p.chain.CaseID, p.order, *q, p.block, inner)
		}
		list := policyListLines(st, p.data.Policies, p.sel, inner)
		if inner >= 90 {
			lw := clamp(inner/3, 30, 44)
			dw := inner - lw - 3
			list = policyListLines(st, p.data.Policies, p.sel, lw)
			if q := p.policy(); q != nil {
				detail = policyDetailLines(st, p.chain.CaseID, p.order, *q, p.block, dw)
			}
			if p.data.Baseline != "" {
				list = append(list, "", st.App.Subtle.Render(ansi.Truncate("compared with:", lw, "…")))
				list = append(list, subtleWrapped(st, p.data.Baseline, "", lw, lw)...)
			}
			avail := max(h-2-len(status), 1)
			detail = window(detail, p.scroll, avail)
			body = append(body, sideBySide(list, detail, lw, avail)...) // the divider runs the pane's full height
			body = append(status, body...)
			break
		}
		body = append(append(status, list...), "")
		body = append(body, window(detail, p.scroll, max(h-2-len(body), 1))...)
	}
	return box(st, title, window(body, 0, max(h-2, 0)), w, h, true)
}

// statusLines are the progress bar, the error or the note, above the content.
func (p *safeguardsPanel) statusLines(w int) []string {
	if l := p.labTask.statusLines(p.c.styles, w, "evaluating every policy", 20, "esc cancels"); l != nil {
		return l
	}
	if p.loading {
		return []string{p.c.styles.App.Subtle.Render("loading the stored evaluation…")}
	}
	return nil
}

// labHelp is the pane's keys (its `?` sheet and key bar).
func (s chainScreen) labHelp() []key.Binding {
	l, k, lab := s.c.keys.List, s.c.keys.Chain, s.c.keys.Lab
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return []key.Binding{
		b(append(l.Down.Keys(), l.Up.Keys()...), "↑/↓", "focus the next/previous policy"),
		b(append(k.PrevBlock.Keys(), k.NextBlock.Keys()...), "←/→", "previous/next block"),
		k.FirstFalse,
		b(append(l.HalfDown.Keys(), l.HalfUp.Keys()...), "ctrl+d/u", "scroll the policy's detail"),
		lab.Run, lab.Executor, k.Copy,
		b(s.c.keys.Global.Back.Keys(), "esc", "cancel a running evaluation, else close the pane"),
	}
}
