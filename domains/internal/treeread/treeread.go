// Package treeread is the domains' strict reader of JSON trees: field by field, with the path
// of the offending field in every error, keeping the first error so that a parser can read a
// whole object without checking after each field.
package treeread

import "github.com/ealscope/ealscope/engine"

// Reader reads fields of a JSON tree and keeps the first error; later reads are no-ops.
type Reader struct {
	Err error
}

// Set records err if it is the first.
func (r *Reader) Set(err error) {
	if r.Err == nil && err != nil {
		r.Err = err
	}
}

// Fail records a FieldError if it is the first.
func (r *Reader) Fail(path, format string, args ...any) {
	r.Set(engine.Errf(path, format, args...))
}

// Obj reads an object with exactly the given keys.
func (r *Reader) Obj(path string, v any, keys []string, optional ...string) map[string]any {
	if r.Err != nil {
		return nil
	}
	m, err := engine.Obj(path, v)
	if err != nil {
		r.Set(err)
		return nil
	}
	r.Set(engine.ExactKeys(path, m, keys, optional...))
	return m
}

// Read reads one field with parse (an engine tree reader) unless the reader has already
// failed, keeping parse's error if it is the first.
func Read[T any](r *Reader, parse func(path string, v any) (T, error), path string, v any) T {
	if r.Err != nil {
		var zero T
		return zero
	}
	x, err := parse(path, v)
	r.Set(err)
	return x
}

// Str reads a string.
func (r *Reader) Str(path string, v any) string { return Read(r, engine.Str, path, v) }

// NonEmpty reads a string that is not blank.
func (r *Reader) NonEmpty(path string, v any) string { return Read(r, engine.NonEmptyStr, path, v) }

// OptStr reads a string or null.
func (r *Reader) OptStr(path string, v any) *string { return Read(r, engine.NullableStr, path, v) }

// Int reads an integer that fits an int.
func (r *Reader) Int(path string, v any) int {
	n := Read(r, engine.Int, path, v)
	if r.Err == nil && (n < -1<<31 || n > 1<<31-1) {
		r.Fail(path, "integer %d is out of range", n)
	}
	return int(n)
}

// StrList reads a list of strings.
func (r *Reader) StrList(path string, v any) []string { return Read(r, engine.StrList, path, v) }

// List reads a list.
func (r *Reader) List(path string, v any) []any { return Read(r, engine.List, path, v) }

// NonEmptyList reads a list that must have an item; an empty one is an error at path saying
// why (empty, "a case needs at least one block").
func (r *Reader) NonEmptyList(path string, v any, empty string) []any {
	l := r.List(path, v)
	if r.Err == nil && len(l) == 0 {
		r.Fail(path, "%s", empty)
	}
	return l
}

// Each reads the items of a list (read at path) as objects with exactly keys, in order, until
// the reader fails: read gets a function giving the path of one of the item's keys, and the
// item's fields.
func (r *Reader) Each(path string, list []any, keys []string, read func(at func(key string) string, m map[string]any)) {
	for i, item := range list {
		if r.Err != nil {
			return
		}
		itemPath := engine.JoinPath(path, i)
		read(func(key string) string { return engine.JoinPath(itemPath, key) }, r.Obj(itemPath, item, keys))
	}
}

// Unique adds id to seen and says whether the reader is still good: an id already in seen is
// an error at path ("duplicate <what> <id>"), and so is nothing once the reader has failed.
func (r *Reader) Unique(seen map[string]bool, id, path, what string) bool {
	if r.Err != nil {
		return false
	}
	if seen[id] {
		r.Fail(path, "duplicate %s %s", what, id)
		return false
	}
	seen[id] = true
	return true
}

// Timestamp reads a string that parses as a timezone-aware ISO timestamp.
func (r *Reader) Timestamp(path string, v any) string {
	s := r.NonEmpty(path, v)
	if r.Err != nil {
		return s
	}
	if _, aware, err := engine.ParseISOTime(s); err != nil {
		r.Fail(path, "%v", err)
	} else if !aware {
		r.Fail(path, "timestamp %q has no UTC offset", s)
	}
	return s
}
