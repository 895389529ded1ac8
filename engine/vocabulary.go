package engine

// The shared vocabulary of runs: EAL-Bench's conditions (docs/FORMATS.md 4.1), memory
// architectures, evidence kinds, and the memory variants of re-run arms. Every package names
// them through these constants, never as string literals of its own.

import (
	"fmt"
	"strings"
)

// Memory architectures.
const (
	ArchFreeText = "free_text"
	ArchTyped    = "typed"
)

// Evidence kinds of a condition.
const (
	EvidenceEmpty       = "empty"
	EvidenceFullHistory = "full_history"
	EvidenceMemory      = "memory"
)

// Condition is one of EAL-Bench's experimental conditions (docs/FORMATS.md §4.1).
type Condition struct {
	ID           string
	Evidence     string
	Architecture string
	// Strategy is "none", "one_shot" or "incremental".
	Strategy string
	Writer   bool
	Faithful bool
}

// FaithfulTypedCondition is the baseline whose trials stand in for the exact arm when a run
// has no exact_repair trials.
const FaithfulTypedCondition = "faithful_typed"

// Conditions lists the eight conditions in EAL-Bench's order.
var Conditions = []Condition{
	{ID: "empty_memory", Evidence: EvidenceEmpty, Strategy: "none"},
	{ID: "full_history", Evidence: EvidenceFullHistory, Strategy: "none"},
	{ID: "faithful_text", Evidence: EvidenceMemory, Architecture: ArchFreeText, Strategy: "none", Faithful: true},
	{ID: "faithful_typed", Evidence: EvidenceMemory, Architecture: ArchTyped, Strategy: "none", Faithful: true},
	{ID: "one_shot_text", Evidence: EvidenceMemory, Architecture: ArchFreeText, Strategy: "one_shot", Writer: true},
	{ID: "one_shot_typed", Evidence: EvidenceMemory, Architecture: ArchTyped, Strategy: "one_shot", Writer: true},
	{ID: "incremental_text", Evidence: EvidenceMemory, Architecture: ArchFreeText, Strategy: "incremental", Writer: true},
	{ID: "incremental_typed", Evidence: EvidenceMemory, Architecture: ArchTyped, Strategy: "incremental", Writer: true},
}

// EventSourcedCondition is EAL-Bench's bounded event-sourcing writer condition (docs/FORMATS.md
// 8.2): one event batch per block, reduced deterministically into typed memory.
const EventSourcedCondition = "bounded_event_sourced_typed"

// SafeguardConditions are writer conditions of EAL-Bench's safeguard studies, selected by
// name only ("all" stays the eight main conditions).
var SafeguardConditions = []Condition{
	{ID: EventSourcedCondition, Evidence: EvidenceMemory, Architecture: ArchTyped, Strategy: "incremental", Writer: true},
}

// KnownConditions are the main conditions followed by the safeguard conditions.
func KnownConditions() []Condition {
	return append(append([]Condition(nil), Conditions...), SafeguardConditions...)
}

// ConditionByID finds a condition.
func ConditionByID(id string) (Condition, bool) {
	for _, c := range KnownConditions() {
		if c.ID == id {
			return c, true
		}
	}
	return Condition{}, false
}

// ParseConditions reads a comma list of condition ids ("" or "all" for the eight main ones),
// keeping EAL-Bench's order (safeguard conditions last) and dropping repeats.
func ParseConditions(list string) ([]Condition, error) {
	if strings.TrimSpace(list) == "" || strings.TrimSpace(list) == "all" {
		return append([]Condition(nil), Conditions...), nil
	}
	want := map[string]bool{}
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if id == "all" {
			// "all,bounded_event_sourced_typed": the eight and a safeguard condition.
			for _, c := range Conditions {
				want[c.ID] = true
			}
			continue
		}
		if _, ok := ConditionByID(id); !ok {
			known := KnownConditions()
			names := make([]string, len(known))
			for i, c := range known {
				names[i] = c.ID
			}
			return nil, fmt.Errorf("unknown condition %q (known: %s)", id, strings.Join(names, ", "))
		}
		want[id] = true
	}
	var out []Condition
	for _, c := range KnownConditions() {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no conditions selected")
	}
	return out, nil
}

// Memory variants of a re-run arm. "written" and "exact" are EAL-Bench's two arms of
// end-to-end attribution; "edited" and "file" are hand-made memories, compared against the
// exact arm the same way a written one is; "gated" is a memory a safeguard policy let through.
const (
	VariantWritten = "written"
	VariantExact   = "exact"
	VariantEdited  = "edited"
	VariantFile    = "file"
	VariantGated   = "gated"
)
