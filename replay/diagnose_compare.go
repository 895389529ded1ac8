package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/runs/rundir"
)

// Comparison is ealscope's agreement with EAL-Bench's judges over a file of diagnosis rows
// that carry both (docs/CAUSES.md "Measured against the judges").
type Comparison struct {
	Judge string `json:"judge"`
	Rows  int    `json:"rows"`
	// Agree counts rows where ealscope's cause equals the judges' consensus; Unanimous and
	// AgreeUnanimous the same over rows where every EAL-Bench judge gives one cause.
	Agree          int `json:"agree"`
	Unanimous      int `json:"unanimous"`
	AgreeUnanimous int `json:"agree_unanimous"`
	// PerClass is keyed by the consensus cause.
	PerClass map[string]ClassAgreement `json:"per_class"`
	// Confusion counts consensus cause -> ealscope cause.
	Confusion map[string]map[string]int `json:"confusion"`
	// Restatement rows with a misleading turn named by two or more judges, and how often
	// ealscope ranks one of those turns first, and in its top three.
	RestatementRows int `json:"restatement_rows"`
	WithAgreedTurn  int `json:"with_agreed_turn"`
	HitAt1          int `json:"hit_at_1"`
	HitAt3          int `json:"hit_at_3"`
	// Misses lists the lines where the class or the rank-1 turn differs.
	Misses []CompareMiss `json:"misses"`
}

// ClassAgreement is one consensus class's rows and how many ealscope agrees on.
type ClassAgreement struct {
	Rows  int `json:"rows"`
	Agree int `json:"agree"`
}

// CompareMiss is one row where ealscope differs.
type CompareMiss struct {
	Line      int    `json:"line"`
	Consensus string `json:"consensus"`
	Ealscope  string `json:"ealscope"`
	What      string `json:"what"`
}

type judgeVote struct {
	Cause      string   `json:"cause"`
	Misleading []string `json:"misleading_message_ids"`
}

// CompareRows reads a diagnosis file holding ealscope's judge (name starting "ealscope")
// beside EAL-Bench's and measures the agreement. The consensus is the row's consensus_cause
// when it has one, else computed from EAL-Bench's judges as EAL-Bench does (ConsensusOf).
func CompareRows(path string) (Comparison, error) {
	cmp := Comparison{PerClass: map[string]ClassAgreement{}, Confusion: map[string]map[string]int{}}
	f, _, err := rundir.OpenRegular(path, rundir.MaxArtifactBytes)
	if err != nil {
		return cmp, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return cmp, err
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := cmp.addRow(path, i+1, line); err != nil {
			return cmp, err
		}
	}
	if cmp.Rows == 0 {
		return cmp, fmt.Errorf("%s: no rows with both ealscope's judge and EAL-Bench's", path)
	}
	return cmp, nil
}

func (cmp *Comparison) addRow(path string, line int, body []byte) error {
	var row struct {
		Judges    map[string]json.RawMessage `json:"judges"`
		Consensus *string                    `json:"consensus_cause"`
	}
	if err := json.Unmarshal(body, &row); err != nil {
		return rowErr(path, line, "", "invalid JSON: %v", err)
	}
	var names []string
	var ours *judgeVote
	votes := map[string]judgeVote{}
	for name, raw := range row.Judges {
		var v judgeVote
		if err := json.Unmarshal(raw, &v); err != nil {
			return rowErr(path, line, "judges."+name, "wrong type: %v", err)
		}
		if IsEalscopeJudge(name) {
			if ours == nil || name == RulesJudge {
				cmp.Judge, ours = name, &v
			}
			continue
		}
		names = append(names, name)
		votes[name] = v
	}
	if ours == nil || len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	causes := make([]string, len(names))
	for i, n := range names {
		causes[i] = votes[n].Cause
	}
	consensus, agreement := ConsensusOf(causes)
	if row.Consensus != nil && *row.Consensus != "" {
		consensus = *row.Consensus
	}
	cmp.Rows++
	pc := cmp.PerClass[consensus]
	pc.Rows++
	if cmp.Confusion[consensus] == nil {
		cmp.Confusion[consensus] = map[string]int{}
	}
	cmp.Confusion[consensus][ours.Cause]++
	if ours.Cause == consensus {
		cmp.Agree++
		pc.Agree++
	} else {
		cmp.Misses = append(cmp.Misses, CompareMiss{Line: line, Consensus: consensus, Ealscope: ours.Cause, What: "class"})
	}
	cmp.PerClass[consensus] = pc
	if agreement == len(names) {
		cmp.Unanimous++
		if ours.Cause == consensus {
			cmp.AgreeUnanimous++
		}
	}
	if consensus != cause.RestatementApplied {
		return nil
	}
	cmp.RestatementRows++
	named := map[string]int{}
	for _, n := range names {
		seen := map[string]bool{}
		for _, id := range votes[n].Misleading {
			if !seen[id] {
				seen[id] = true
				named[id]++
			}
		}
	}
	agreed := map[string]bool{}
	for id, k := range named {
		if k >= 2 {
			agreed[id] = true
		}
	}
	if len(agreed) == 0 {
		return nil
	}
	cmp.WithAgreedTurn++
	for i, id := range ours.Misleading {
		if i >= 3 {
			break
		}
		if agreed[id] {
			if i == 0 {
				cmp.HitAt1++
			}
			cmp.HitAt3++
			break
		}
	}
	if len(ours.Misleading) == 0 || !agreed[ours.Misleading[0]] {
		first := "none"
		if len(ours.Misleading) > 0 {
			first = ours.Misleading[0]
		}
		cmp.Misses = append(cmp.Misses, CompareMiss{Line: line, Consensus: consensus, Ealscope: ours.Cause, What: "rank-1 turn " + first})
	}
	return nil
}

// ConsensusOf is EAL-Bench's consensus over judges' causes given in judge-name order: the
// unique most-voted cause, on a tie the first judge's; agreement is the top vote count.
func ConsensusOf(causes []string) (string, int) {
	counts := map[string]int{}
	top := 0
	for _, c := range causes {
		counts[c]++
		if counts[c] > top {
			top = counts[c]
		}
	}
	var leaders []string
	for c, n := range counts {
		if n == top {
			leaders = append(leaders, c)
		}
	}
	if len(leaders) == 1 {
		return leaders[0], top
	}
	for _, c := range causes {
		if counts[c] == top {
			return c, top
		}
	}
	return "", 0
}
