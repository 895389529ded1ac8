package tui

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// KeyMap holds every binding, grouped by where it applies. Defaults follow UX.md; the config
// file's [keys] table rebinds any action by name (see Remap), with several keys per action.
type KeyMap struct {
	Global globalKeys
	List   listKeys
	Chain  chainKeys
	// Annotate is the annotation screen (tui/annotate.go).
	Annotate annotateKeys
	// Present is presentation mode (tui/presenting.go).
	Present presentKeys
	// Lab is the safeguard lab: the chain view's safeguards pane and the run's safeguards
	// screen (tui/safeguards*.go).
	Lab labKeys
}

type globalKeys struct {
	Quit, ForceQuit, Back, Help, Command, NextPane key.Binding
}

type listKeys struct {
	Up, Down, Top, Bottom, HalfDown, HalfUp, Open, Filter, Sort, NextFlagged key.Binding
}

type chainKeys struct {
	PrevBlock, NextBlock, FirstFalse, NextChange, PrevChange, Baseline, SideBySide,
	Copy, Search, Up, Down, Rerun, Annotate, Present key.Binding
}

type labKeys struct {
	Open, Run, Executor, Audience key.Binding
}

type presentKeys struct {
	Next, Prev, First, Last, Down, Up key.Binding
}

type annotateKeys struct {
	NextField, PrevField, Edit, Save, Undo, Guidelines, AddRecord, RemoveRecord, Prefill, Blind,
	NextCandidate, TakeCandidate, NextMemory, PrevMemory, ScrollText, Accept key.Binding
}

// DefaultKeyMap returns the bindings of UX.md. No action is bound only to [ / ] or alt, so
// every action is reachable on keyboards where those are awkward.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Global: globalKeys{
			Quit:      b([]string{"q"}, "q", "quit"),
			ForceQuit: b([]string{"ctrl+c"}, "ctrl+c", "quit now"),
			Back:      b([]string{"esc"}, "esc", "back"),
			Help:      b([]string{"?"}, "?", "help"),
			Command:   b([]string{":"}, ":", "command"),
			NextPane:  b([]string{"tab"}, "tab", "next pane"),
		},
		List: listKeys{
			Up:          b([]string{"k", "up"}, "↑/k", "up"),
			Down:        b([]string{"j", "down"}, "↓/j", "down"),
			Top:         b([]string{"g", "home"}, "g", "top"),
			Bottom:      b([]string{"G", "end"}, "G", "bottom"),
			HalfDown:    b([]string{"ctrl+d", "pgdown"}, "ctrl+d", "half page down"),
			HalfUp:      b([]string{"ctrl+u", "pgup"}, "ctrl+u", "half page up"),
			Open:        b([]string{"enter"}, "enter", "open"),
			Filter:      b([]string{"/"}, "/", "filter"),
			Sort:        b([]string{"o"}, "o", "sort by next column"),
			NextFlagged: b([]string{"n"}, "n", "next flagged"),
		},
		Chain: chainKeys{
			PrevBlock:  b([]string{"left", "[", "h"}, "←/[", "previous block"),
			NextBlock:  b([]string{"right", "]", "l"}, "→/]", "next block"),
			FirstFalse: b([]string{"f"}, "f", "first false authority"),
			NextChange: b([]string{"n"}, "n", "next change"),
			PrevChange: b([]string{"N"}, "N", "previous change"),
			Baseline:   b([]string{"c"}, "c", "cycle baseline"),
			SideBySide: b([]string{"s"}, "s", "side-by-side/inline"),
			Copy:       b([]string{"y"}, "y", "copy focused item"),
			Search:     b([]string{"/"}, "/", "search workspace"),
			Up:         b([]string{"k", "up"}, "↑/k", "scroll up"),
			Down:       b([]string{"j", "down"}, "↓/j", "scroll down"),
			Rerun:      b([]string{"r"}, "r", "re-run this block"),
			Annotate:   b([]string{"a"}, "a", "annotate this free-text memory"),
			Present:    b([]string{"P"}, "P", "present this chain"),
		},
		Lab: labKeys{
			Open:     b([]string{"S"}, "S", "safeguards (policy lab)"),
			Run:      b([]string{"r", "enter"}, "r/enter", "evaluate every policy (re-runs the executor behind the gated memory)"),
			Executor: b([]string{"x"}, "x", "next executor (built-in, configured models)"),
			Audience: b([]string{"v"}, "v", "view: every policy / audience_bound (per arm: exposure, entitled recall)"),
		},
		Present: presentKeys{
			Next:  b([]string{"right", "space", "l", "]"}, "→/space", "next step"),
			Prev:  b([]string{"left", "h", "["}, "←", "previous step"),
			First: b([]string{"g", "home"}, "g", "first step"),
			Last:  b([]string{"G", "end"}, "G", "last step"),
			Down:  b([]string{"down", "j"}, "↓/j", "scroll the step down"),
			Up:    b([]string{"up", "k"}, "↑/k", "scroll the step up"),
		},
		Annotate: annotateKeys{
			NextField:     b([]string{"tab", "j", "down"}, "tab/j", "next field"),
			PrevField:     b([]string{"shift+tab", "k", "up"}, "shift+tab/k", "previous field"),
			Edit:          b([]string{"enter"}, "enter", "edit/confirm field (1-9 pick a value; enter keeps it)"),
			Save:          b([]string{"ctrl+s"}, "ctrl+s", "save and next"),
			Undo:          b([]string{"u"}, "u", "undo"),
			Guidelines:    b([]string{"g"}, "g", "guidelines"),
			AddRecord:     b([]string{"a", "+"}, "a", "add record"),
			RemoveRecord:  b([]string{"x", "-"}, "x", "remove record"),
			Prefill:       b([]string{"p"}, "p", "pre-fill from the layout"),
			Blind:         b([]string{"b"}, "b", "blind mode"),
			NextCandidate: b([]string{"c"}, "c", "next annotator's label"),
			TakeCandidate: b([]string{"t"}, "t", "take that label"),
			NextMemory:    b([]string{"right", "]"}, "→/]", "next memory"),
			PrevMemory:    b([]string{"left", "["}, "←/[", "previous memory"),
			ScrollText:    b([]string{"ctrl+d", "pgdown"}, "ctrl+d", "scroll the text"),
			Accept:        b([]string{"ctrl+a"}, "ctrl+a", "save as the accepted label (it then scores the memory)"),
		},
	}
}

// actions names every binding for the config file: "<group>.<action>", plus the bare action
// name when it is unique across groups (so `next_block = ["l"]` works).
func (k *KeyMap) actions() map[string]*key.Binding {
	m := map[string]*key.Binding{
		"global.quit": &k.Global.Quit, "global.force_quit": &k.Global.ForceQuit,
		"global.back": &k.Global.Back, "global.help": &k.Global.Help,
		"global.command": &k.Global.Command, "global.next_pane": &k.Global.NextPane,
		"list.up": &k.List.Up, "list.down": &k.List.Down, "list.top": &k.List.Top,
		"list.bottom": &k.List.Bottom, "list.half_down": &k.List.HalfDown,
		"list.half_up": &k.List.HalfUp, "list.open": &k.List.Open, "list.filter": &k.List.Filter,
		"list.sort": &k.List.Sort, "list.next_flagged": &k.List.NextFlagged,
		"chain.prev_block": &k.Chain.PrevBlock, "chain.next_block": &k.Chain.NextBlock,
		"chain.first_false_authority": &k.Chain.FirstFalse, "chain.next_change": &k.Chain.NextChange,
		"chain.prev_change": &k.Chain.PrevChange, "chain.cycle_baseline": &k.Chain.Baseline,
		"chain.side_by_side": &k.Chain.SideBySide, "chain.copy": &k.Chain.Copy,
		"chain.search": &k.Chain.Search, "chain.up": &k.Chain.Up, "chain.down": &k.Chain.Down,
		"chain.rerun": &k.Chain.Rerun, "chain.annotate": &k.Chain.Annotate, "chain.present": &k.Chain.Present,
		"lab.open": &k.Lab.Open, "lab.run": &k.Lab.Run, "lab.executor": &k.Lab.Executor, "lab.audience": &k.Lab.Audience,
		"present.next": &k.Present.Next, "present.prev": &k.Present.Prev,
		"present.first": &k.Present.First, "present.last": &k.Present.Last,
		"present.down": &k.Present.Down, "present.up": &k.Present.Up,
		"annotate.next_field": &k.Annotate.NextField, "annotate.prev_field": &k.Annotate.PrevField,
		"annotate.edit": &k.Annotate.Edit, "annotate.save": &k.Annotate.Save, "annotate.undo": &k.Annotate.Undo,
		"annotate.guidelines": &k.Annotate.Guidelines, "annotate.add_record": &k.Annotate.AddRecord,
		"annotate.remove_record": &k.Annotate.RemoveRecord, "annotate.prefill": &k.Annotate.Prefill,
		"annotate.blind": &k.Annotate.Blind, "annotate.next_candidate": &k.Annotate.NextCandidate,
		"annotate.take_candidate": &k.Annotate.TakeCandidate, "annotate.next_memory": &k.Annotate.NextMemory,
		"annotate.prev_memory": &k.Annotate.PrevMemory, "annotate.scroll_text": &k.Annotate.ScrollText,
		"annotate.accept": &k.Annotate.Accept,
	}
	count := map[string]int{}
	for name := range m {
		count[name[strings.IndexByte(name, '.')+1:]]++
	}
	for name, b := range m {
		if short := name[strings.IndexByte(name, '.')+1:]; count[short] == 1 {
			m[short] = b
		}
	}
	return m
}

// Remap applies the config file's [keys] table (action = ["key", ...]). Unknown actions and
// empty key lists are errors naming the action, so a typo is reported instead of ignored.
// ctrl+c cannot be unbound from force_quit: it is the one exit that must always work.
func (k *KeyMap) Remap(overrides map[string][]string) error {
	acts := k.actions()
	if err := remapConflicts(acts, overrides); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(overrides)) {
		keys := overrides[name]
		b, ok := acts[name]
		if !ok {
			return fmt.Errorf("keys.%s: unknown action (known: %s)", name, strings.Join(k.ActionNames(), ", "))
		}
		if len(keys) == 0 {
			return fmt.Errorf("keys.%s: needs at least one key", name)
		}
		if b == &k.Global.ForceQuit && !slices.Contains(keys, "ctrl+c") {
			keys = append(keys, "ctrl+c")
		}
		b.SetKeys(keys...)
		b.SetHelp(strings.Join(keys, "/"), b.Help().Desc)
	}
	return nil
}

// ActionNames lists the qualified action names, sorted.
func (k *KeyMap) ActionNames() []string {
	var out []string
	for n := range k.actions() {
		if strings.Contains(n, ".") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// remapConflicts refuses a [keys] table that names one action twice (by its short and its
// qualified name) or gives one key to two actions of the same pane (or one to a global
// action and any other): either way one of the two bindings would silently never fire.
// Unknown actions are left to Remap's own error.
func remapConflicts(acts map[string]*key.Binding, overrides map[string][]string) error {
	qualified := map[*key.Binding]string{}
	for name, b := range acts {
		if strings.Contains(name, ".") {
			qualified[b] = name
		}
	}
	type use struct{ group, name string }
	named := map[*key.Binding]string{}
	byKey := map[string][]use{}
	for _, name := range slices.Sorted(maps.Keys(overrides)) {
		b, ok := acts[name]
		if !ok {
			continue
		}
		if prev, dup := named[b]; dup {
			return fmt.Errorf("keys.%s and keys.%s both remap %s", prev, name, qualified[b])
		}
		named[b] = name
		group, _, _ := strings.Cut(qualified[b], ".")
		for _, k := range slices.Compact(slices.Sorted(slices.Values(overrides[name]))) {
			for _, u := range byKey[k] {
				if u.group == group || u.group == "global" || group == "global" {
					return fmt.Errorf("keys.%s and keys.%s both use %q", u.name, name, k)
				}
			}
			byKey[k] = append(byKey[k], use{group, name})
		}
	}
	return nil
}
