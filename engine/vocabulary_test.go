package engine

import (
	"strings"
	"testing"
)

// TestParseConditionsSafeguard: the event-sourcing condition is known by name, stays out of
// "all", and joins the eight with "all,<id>", in EAL-Bench's order with safeguards last.
func TestParseConditionsSafeguard(t *testing.T) {
	ids := func(cs []Condition) string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return strings.Join(out, ",")
	}
	all, err := ParseConditions("all")
	if err != nil || len(all) != 8 || strings.Contains(ids(all), EventSourcedCondition) {
		t.Fatalf("all: %s %v", ids(all), err)
	}
	two, err := ParseConditions(EventSourcedCondition + ", incremental_typed")
	if err != nil || ids(two) != "incremental_typed,"+EventSourcedCondition {
		t.Fatalf("pair: %s %v", ids(two), err)
	}
	nine, err := ParseConditions("all," + EventSourcedCondition)
	if err != nil || len(nine) != 9 || nine[8].ID != EventSourcedCondition {
		t.Fatalf("all+event: %s %v", ids(nine), err)
	}
	c, ok := ConditionByID(EventSourcedCondition)
	if !ok || !c.Writer || c.Architecture != ArchTyped || c.Strategy != "incremental" {
		t.Fatalf("%+v", c)
	}
	if _, err := ParseConditions("bounded_event_sourced"); err == nil || !strings.Contains(err.Error(), EventSourcedCondition) {
		t.Fatalf("unknown condition error should list the known ones: %v", err)
	}
}
