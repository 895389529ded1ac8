package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// What the ledger table's cells say. Lists the schema declares order-free (a request value
// must be one of the items; cited turns) are compared as sets: the items one side lacks come
// first and marked ([-x-] on the ledger side, {+x+} on the memory side), so a cut cell still
// shows the difference and a mere reordering shows none. A record the memory holds under an
// id the ledger does not know is paired with the ledger record it most resembles, and the
// fields that differ are listed under it (a renamed record with a doubled amount).

// setField reports whether the schema compares the field's values as sets.
func setField(sc engine.RecordSchema, path string) (engine.SchemaField, bool) {
	f, ok := sc.Field(path)
	return f, ok && (f.Kind == engine.KindList || f.Kind == engine.KindCitations)
}

// listItems reads a list cell: a JSON list of scalars, or a list joined by the field's
// separator (finance's flat schema). ok is false for anything else.
func listItems(f engine.SchemaField, cell string) ([]string, bool) {
	t := strings.TrimSpace(cell)
	if strings.HasPrefix(t, "[") {
		var raw []any
		if json.Unmarshal([]byte(t), &raw) != nil {
			return nil, false
		}
		out := make([]string, len(raw))
		for i, v := range raw {
			out[i] = fmt.Sprint(v)
		}
		return out, true
	}
	if f.Joined != "" && t != "—" {
		if t == "" {
			return nil, true
		}
		return strings.Split(t, f.Joined), true
	}
	return nil, false
}

// setCells compares two list cells as sets: each side lists the items the other lacks first,
// marked, then the shared items; same is true when the sets are equal (order aside).
func setCells(ledger, memory []string) (l, m string, same bool) {
	inL, inM := map[string]bool{}, map[string]bool{}
	for _, x := range ledger {
		inL[x] = true
	}
	for _, x := range memory {
		inM[x] = true
	}
	var onlyL, onlyM, both []string
	for x := range inL {
		if inM[x] {
			both = append(both, x)
		} else {
			onlyL = append(onlyL, "[-"+x+"-]")
		}
	}
	for x := range inM {
		if !inL[x] {
			onlyM = append(onlyM, "{+"+x+"+}")
		}
	}
	sort.Strings(onlyL)
	sort.Strings(onlyM)
	sort.Strings(both)
	l = strings.Join(append(onlyL, both...), ", ")
	m = strings.Join(append(onlyM, both...), ", ")
	return l, m, len(onlyL) == 0 && len(onlyM) == 0
}

// ledgerCells are a fidelity row's ledger and memory cells, set-aware for order-free lists.
func ledgerCells(sc engine.RecordSchema, r FieldRow) (ledger, memory string) {
	ledger, memory = sanitizeLine(r.Ledger), sanitizeLine(r.Remembered)
	f, ok := setField(sc, r.Field)
	if !ok {
		return ledger, memory
	}
	li, lok := listItems(f, r.Ledger)
	mi, mok := listItems(f, r.Remembered)
	if !lok || !mok {
		return ledger, memory
	}
	l, m, same := setCells(li, mi)
	if same && r.Ledger != r.Remembered { // reordered: say so, it is no change
		l += " (same items)"
		m += " (same items)"
	}
	return sanitizeLine(l), sanitizeLine(m)
}

// recordPair is an extra memory record paired with the missing ledger record it most
// resembles, and the fields where they differ.
type recordPair struct {
	ledgerID string
	diffs    [][3]string // field, ledger value, memory value
}

// pairRenamedRecords pairs each whole-record row the memory has and the ledger lacks with the
// ledger-only record sharing the most field values (at least one besides the id); the result
// is keyed by the memory row's index.
func pairRenamedRecords(rows []FieldRow) map[int]recordPair {
	type rec struct {
		i      int
		id     string
		fields map[string]string
	}
	parse := func(cell string) map[string]string {
		var v any
		if json.Unmarshal([]byte(cell), &v) != nil {
			return nil
		}
		if _, ok := v.(map[string]any); !ok {
			return nil
		}
		out := map[string]string{}
		for _, f := range flatten(v) {
			out[f.path] = f.value
		}
		return out
	}
	var extra, missing []rec
	for i, r := range rows {
		if r.Field != "__record__" {
			continue
		}
		switch {
		case r.Ledger == "—" && r.Remembered != "—":
			if f := parse(r.Remembered); f != nil {
				extra = append(extra, rec{i, r.AuthorizationID, f})
			}
		case r.Remembered == "—" && r.Ledger != "—":
			if f := parse(r.Ledger); f != nil {
				missing = append(missing, rec{i, r.AuthorizationID, f})
			}
		}
	}
	out := map[int]recordPair{}
	taken := map[int]bool{}
	for _, e := range extra {
		// The most shared values wins; a pair must share at least two thirds of the fields
		// besides the id and cited turns, or it is a different record, not a renamed one.
		best, score := -1, 0
		for j, m := range missing {
			if taken[j] {
				continue
			}
			n, of := 0, 0
			for k, v := range e.fields {
				if k == "authorization_id" || strings.HasPrefix(k, "source_turn_ids") {
					continue
				}
				of++
				if m.fields[k] == v {
					n++
				}
			}
			if 3*n >= 2*of && n > score {
				best, score = j, n
			}
		}
		if best < 0 {
			continue
		}
		taken[best] = true
		m := missing[best]
		var diffs [][3]string
		keys := map[string]bool{}
		for k := range e.fields {
			keys[k] = true
		}
		for k := range m.fields {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			lv, mv := m.fields[k], e.fields[k]
			if lv != mv {
				diffs = append(diffs, [3]string{k, orDash(lv), orDash(mv)})
			}
		}
		out[e.i] = recordPair{ledgerID: m.id, diffs: diffs}
	}
	return out
}

var setMarks = regexp.MustCompile(`\[-[^\]]*?-\]|\{\+[^}]*?\+\}`)

// markSetItems styles the marked items of a set cell as the word diff styles its marks.
func markSetItems(st *Styles, text string) string {
	return setMarks.ReplaceAllStringFunc(text, func(m string) string {
		if strings.HasPrefix(m, "[-") {
			return st.Chain.Removed.Render(m)
		}
		return st.Chain.Added.Render(m)
	})
}
