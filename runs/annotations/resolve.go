package annotations

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// StoredLabel is what resolution reads of one stored label.
type StoredLabel struct {
	ID, Status, SourceHash string
	// StateJSON is the label's typed state as canonical JSON ("" for none).
	StateJSON string
}

// Resolution is a memory's annotation outcome: the accepted records to score, or the reason
// it stays unscored.
type Resolution struct {
	Reason  string
	Records []engine.Record
	State   map[string]any
}

// Resolve applies EAL-Bench's rules (the package comment) to the labels of one memory whose
// current content hash is contentHash; missingReason is the reason of a memory with no label.
// The accepted states are read in the memory's domain schema.
func Resolve(d engine.Domain, labels []StoredLabel, contentHash, missingReason string) (*Resolution, error) {
	statuses := map[string]bool{}
	var accepted []StoredLabel
	for _, l := range labels {
		statuses[l.Status] = true
		if l.Status == AnnotationAccepted {
			accepted = append(accepted, l)
		}
	}
	if len(statuses) == 0 {
		return &Resolution{Reason: missingReason}, nil
	}
	if len(accepted) == 0 {
		names := make([]string, 0, len(statuses))
		for s := range statuses {
			names = append(names, s)
		}
		sort.Strings(names)
		return &Resolution{Reason: ReasonAnnotationNotAccepted + ":" + strings.Join(names, ",")}, nil
	}
	for _, a := range accepted {
		if a.SourceHash != contentHash {
			return &Resolution{Reason: ReasonAnnotationHashMismatch}, nil
		}
	}
	var res *Resolution
	canon := ""
	for i, a := range accepted {
		tree, err := pyjson.DecodeTree([]byte(a.StateJSON))
		if err != nil || a.StateJSON == "" {
			return nil, fmt.Errorf("invalid accepted annotation %d (%s) for source %s: no readable state", i, a.ID, contentHash)
		}
		records, norm, err := engine.ParseAnnotationState(d, tree)
		if err != nil {
			return nil, fmt.Errorf("invalid accepted annotation %d (%s) for source %s: %w", i, a.ID, contentHash, err)
		}
		c := pyjson.MustCanonicalJSON(norm)
		if i == 0 {
			canon, res = c, &Resolution{Records: records, State: norm}
		} else if c != canon {
			return &Resolution{Reason: ReasonConflictingAnnotations}, nil
		}
	}
	return res, nil
}
