package treeread_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/domains/internal/treeread"
)

func decode(t *testing.T, s string) any { return ealtest.Tree(t, json.RawMessage(s)) }

// TestFirstErrorKept: a failed read is the reader's error, and every later read is a no-op
// that returns the zero value, whatever it is given.
func TestFirstErrorKept(t *testing.T) {
	var r treeread.Reader
	m := r.Obj("case", decode(t, `{"id": "c1", "n": 3, "tags": ["a"]}`), []string{"id", "n", "tags"})
	if id := r.NonEmpty("case.id", m["id"]); id != "c1" || r.Err != nil {
		t.Fatalf("NonEmpty = %q, %v", id, r.Err)
	}
	if n := r.Int("case.n", m["n"]); n != 3 || r.Err != nil {
		t.Fatalf("Int = %d, %v", n, r.Err)
	}
	if s := r.Str("case.tags", m["tags"]); s != "" || r.Err == nil {
		t.Fatalf("Str of a list = %q, %v; want an error", s, r.Err)
	}
	first := r.Err.Error()
	if l := r.StrList("case.tags", m["tags"]); l != nil || r.Err.Error() != first {
		t.Errorf("after the error StrList = %v and the error became %v", l, r.Err)
	}
	if r.Fail("case.x", "late"); r.Err.Error() != first {
		t.Errorf("Fail replaced the first error: %v", r.Err)
	}
	if first == "" || !strings.Contains(first, "case.tags") {
		t.Errorf("error %q does not name case.tags", first)
	}
}

func TestIntRangeAndTimestamp(t *testing.T) {
	var r treeread.Reader
	if r.Int("n", decode(t, "1099511627776")); r.Err == nil {
		t.Error("an integer beyond int32 was accepted")
	}
	var ts treeread.Reader
	if ts.Timestamp("at", "2026-01-01T00:00:00"); ts.Err == nil {
		t.Error("a timestamp without an offset was accepted")
	}
	var ok treeread.Reader
	if s := ok.Timestamp("at", "2026-01-01T00:00:00Z"); s != "2026-01-01T00:00:00Z" || ok.Err != nil {
		t.Errorf("Timestamp = %q, %v", s, ok.Err)
	}
}

// TestEach: the items are read in order with their own key paths, and reading stops at the
// first failure (a bad item, or one the callback refuses).
func TestEach(t *testing.T) {
	var r treeread.Reader
	list := r.List("items", decode(t, `[{"id": "a"}, {"id": "b"}, {"id": "stop"}, {"id": "c"}]`))
	var got []string
	r.Each("items", list, []string{"id"}, func(at func(key string) string, m map[string]any) {
		id := r.NonEmpty(at("id"), m["id"])
		if id == "stop" {
			r.Fail(at("id"), "stopped")
			return
		}
		got = append(got, at("id")+"="+id)
	})
	if want := []string{"items[0].id=a", "items[1].id=b"}; !slices.Equal(got, want) {
		t.Errorf("read %q, want %q", got, want)
	}
	if r.Err == nil || !strings.Contains(r.Err.Error(), "items[2].id") {
		t.Errorf("error %v, want one at items[2].id", r.Err)
	}
	var bad treeread.Reader
	n := 0
	bad.Each("items", []any{"not an object", map[string]any{}}, []string{"id"}, func(func(string) string, map[string]any) { n++ })
	if n != 1 || bad.Err == nil || !strings.Contains(bad.Err.Error(), "items[0]") {
		t.Errorf("a non-object item: %d reads, error %v", n, bad.Err)
	}
}

func TestUnique(t *testing.T) {
	var r treeread.Reader
	seen := map[string]bool{}
	if !r.Unique(seen, "e1", "events[0].event_id", "event id") || !r.Unique(seen, "e2", "events[1].event_id", "event id") {
		t.Fatalf("distinct ids refused: %v", r.Err)
	}
	if r.Unique(seen, "e1", "events[2].event_id", "event id") {
		t.Fatal("a repeated id was accepted")
	}
	if want := "field events[2].event_id: duplicate event id e1"; r.Err == nil || r.Err.Error() != want {
		t.Errorf("error %v, want %s", r.Err, want)
	}
	if r.Unique(seen, "e9", "events[3].event_id", "event id") || seen["e9"] {
		t.Error("a failed reader still records ids")
	}
}

func TestNonEmptyList(t *testing.T) {
	var r treeread.Reader
	if l := r.NonEmptyList("blocks", decode(t, `[1]`), "a case needs at least one block"); len(l) != 1 || r.Err != nil {
		t.Fatalf("NonEmptyList = %v, %v", l, r.Err)
	}
	r.NonEmptyList("blocks", decode(t, `[]`), "a case needs at least one block")
	if want := "field blocks: a case needs at least one block"; r.Err == nil || r.Err.Error() != want {
		t.Errorf("error %v, want %s", r.Err, want)
	}
}
