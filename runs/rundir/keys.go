package rundir

import (
	"reflect"
	"strings"
)

// knownKeys are the field names of the artifact rows (rows.go), so that the shallow parser
// gives each row's keys one shared string instead of allocating them anew on every row: a row
// has dozens of keys and an import has millions of rows. It is built once and only read
// (safe for the parser workers); a key not in it is allocated as usual.
var knownKeys = func() map[string]string {
	out := map[string]string{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Anonymous {
				add(f.Type)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name != "" && name != "-" {
				out[name] = name
			}
			add(f.Type)
		}
	}
	for _, v := range []any{MemoryArtifact{}, MemoryAttempt{}, MemoryState{}, FrozenEvidence{}, NormalizedTrial{},
		ModelContext{}, ExecutorPlanRow{}, FaultRow{}} {
		add(reflect.TypeOf(v))
	}
	for _, k := range []string{"trial_id", "request", "response", "task", "error", "ts", "model"} {
		out[k] = k
	}
	return out
}()

// internKey is key's shared string when it is a known field name.
func internKey(b []byte) string {
	if s, ok := knownKeys[string(b)]; ok {
		return s
	}
	return string(b)
}
