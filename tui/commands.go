package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/ealscope/ealscope/runs"
)

// Answers of the `:` command line that say what would have worked: the valid block range,
// the closest case ids.

// blockOutOfRange is the answer to `:block N` past the chain's blocks (nil when N is valid).
func (s chainScreen) blockOutOfRange(n int) error {
	if s.detail == nil || (n >= 0 && n <= s.lastBlock()) {
		return nil
	}
	return fmt.Errorf(":block %d: this chain has blocks 0..%d", n, s.lastBlock())
}

// unknownCaseMsg answers `:case ID` for an id the run lacks, naming the closest ids.
func unknownCaseMsg(ctx context.Context, store ChainLister, runID, caseID string) tea.Msg {
	rows, err := store.Chains(ctx, runs.ChainFilter{RunID: runID})
	if err != nil {
		return errMsg{err}
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.CaseID
	}
	near := closestIDs(caseID, dedupe(ids), 3)
	if len(near) == 0 {
		return errorf("run %s has no case %q (it has no cases)", runID, caseID)
	}
	return errorf("run %s has no case %q; closest: %s", runID, caseID, strings.Join(near, ", "))
}

// closestIDs ranks ids by how well they match q: ids containing q first, then by edit
// distance (case-insensitive), ties by id.
func closestIDs(q string, ids []string, n int) []string {
	lq := strings.ToLower(q)
	type scored struct {
		id   string
		rank int
	}
	var all []scored
	for _, id := range ids {
		li := strings.ToLower(id)
		r := editDistance(lq, li)
		if strings.Contains(li, lq) {
			r -= 1000
		}
		all = append(all, scored{id, r})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].rank != all[j].rank {
			return all[i].rank < all[j].rank
		}
		return all[i].id < all[j].id
	})
	var out []string
	for i := 0; i < len(all) && i < n; i++ {
		out = append(out, sanitizeLine(all[i].id))
	}
	return out
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// openRerun opens the re-run form on the block shown (`r` and `:replay`).
func (s *chainScreen) openRerun() tea.Cmd {
	if s.rerunner == nil || s.detail == nil {
		s.notice = "re-runs need a workspace"
		return nil
	}
	s.rerun = newRerunPanel(s.c, s.rerunner, s.models, s.key, s.block)
	return s.rerun.Init()
}

// rerunHelp is the re-run form's keys (its `?` sheet and key bar).
func (s chainScreen) rerunHelp() []key.Binding {
	l, k := s.c.keys.List, s.c.keys.Chain
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	// The panel's keys are the chain's and the list's (rerun.go handleKey): their help says so.
	back := s.c.keys.Global.Back
	return []key.Binding{
		b(append(k.Up.Keys(), k.Down.Keys()...), keyPair(k.Up, k.Down), "move between the form rows and earlier re-runs"),
		b(append(k.PrevBlock.Keys(), k.NextBlock.Keys()...), keyPair(k.PrevBlock, k.NextBlock), "change the value (memory, probes, executor, runs)"),
		b(l.Open.Keys(), l.Open.Help().Key, "run, or reopen an earlier re-run"),
		b(back.Keys(), back.Help().Key, "cancel a running re-run (finished arms are kept), leave results, close the form"),
	}
}

// keyPair names two bindings' keys together, as help shows them ("←/[, →/]").
func keyPair(a, b key.Binding) string { return a.Help().Key + ", " + b.Help().Key }

// focusHelp is the key bar of the focused pane (nil on the timeline: the block keys).
func (s chainScreen) focusHelp() []key.Binding {
	k := s.c.keys.Chain
	switch s.focus {
	case paneHistory:
		return []key.Binding{k.Down, k.Up, k.Copy, k.Search}
	case paneMemory:
		if s.base == baseLedger {
			return []key.Binding{k.Down, k.Up, ledgerExpandKey(s.c.keys.List.Open), k.Copy, k.Baseline}
		}
		return []key.Binding{k.Baseline, k.SideBySide, k.NextChange, k.Down, k.Copy}
	case paneProbes:
		return []key.Binding{k.Down, k.Up, k.Copy, k.Rerun}
	}
	return nil
}

// pageKey moves within the focused pane for g/G (top/bottom) and ctrl+d/ctrl+u (half a
// page): blocks on the timeline, turns in the history, probes, and lines of the memory pane.
// It reports whether msg was one of those keys.
func (s *chainScreen) pageKey(msg tea.KeyPressMsg) (bool, tea.Cmd) {
	l := s.c.keys.List
	const far = 1 << 30
	f := chainLayout(s.c.width, s.c.height, layoutState{focus: s.focus})
	half := max((f.memory.h-2)/2, 1)
	var d int
	switch {
	case key.Matches(msg, l.Top):
		d = -far
	case key.Matches(msg, l.Bottom):
		d = far
	case key.Matches(msg, l.HalfDown):
		d = half
	case key.Matches(msg, l.HalfUp):
		d = -half
	default:
		return false, nil
	}
	b, ok := s.blocks[s.block]
	switch s.focus {
	case paneTimeline:
		if d == far || d == -far {
			return true, s.setBlock(clamp(d, 0, s.lastBlock()))
		}
		return true, s.setBlock(clamp(s.block+d/2, 0, s.lastBlock())) // two lines per block
	case paneHistory:
		if ok {
			s.turn = clamp(s.turn+pageStep(d, half, 4), 0, max(len(b.Turns)-1, 0))
		}
	case paneProbes:
		if ok {
			s.moveProbeCursor(b, s.probe+pageStep(d, half, 3))
		}
	case paneMemory:
		if ok {
			lines := len(s.memoryLines(b, max(f.memory.w-2, 1)))
			s.scroll[paneMemory] = clamp(s.scroll[paneMemory]+d, 0, max(lines-(f.memory.h-2), 0))
		}
	}
	return true, nil
}

// pageStep turns a half page of lines into items of about perItem lines each (far moves stay
// far).
func pageStep(d, half, perItem int) int {
	if d > half || d < -half {
		return d
	}
	if d > 0 {
		return max(d/perItem, 1)
	}
	return min(d/perItem, -1)
}

// commandLine is every : command with its argument, as the command line lists them.
var commandLine = []string{":block N", ":case ID", ":replay", ":safeguards", ":link", ":q"}

// matchingCommands are the : commands whose name starts with the first word typed (all of
// them when nothing is typed yet).
func matchingCommands(typed string) []string {
	word := strings.Fields(typed + " ")
	all := allCommands()
	var out []string
	for _, c := range all {
		name := strings.Fields(c)[0][1:]
		if len(word) == 0 || strings.HasPrefix(name, word[0]) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// allCommands are the built-in commands, then those that open registered screens.
func allCommands() []string {
	all := commandLine
	for _, spec := range screens {
		if spec.command == "" {
			continue
		}
		hint := spec.hint
		if hint == "" {
			hint = ":" + spec.command
		}
		all = append(all[:len(all):len(all)], hint)
	}
	return all
}

// completeCommand completes a partly typed command name when one command matches it.
func completeCommand(typed string) string {
	if strings.Contains(typed, " ") {
		return typed
	}
	m := matchingCommands(typed)
	if len(m) != 1 {
		return typed
	}
	name := strings.Fields(m[0])[0][1:]
	if strings.Contains(m[0], " ") {
		return name + " "
	}
	return name
}

// commandWhere says where each screen's own command works, for when it is typed elsewhere.
var commandWhere = map[string]string{
	"block":      ":block N works in the chain view",
	"replay":     ":replay works in the chain view (it re-runs the block shown)",
	"case":       ":case ID works in the chains list and the chain view",
	"safeguards": ":safeguards works in the chain view (this chain) and the chains list (the run)",
	"link":       ":link works in the chain view",
}

// commandAliases are the other names of the commands above.
var commandAliases = map[string]string{"b": "block", "rerun": "replay", "lab": "safeguards"}

// errCommandWhere is the error for a screen's command typed where it does not work; nil
// when no screen has such a command.
func errCommandWhere(name string) error {
	if a, ok := commandAliases[name]; ok {
		name = a
	}
	if where, ok := commandWhere[name]; ok {
		return errors.New(where)
	}
	return nil
}
