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

// Str reads a string.
func (r *Reader) Str(path string, v any) string {
	if r.Err != nil {
		return ""
	}
	s, err := engine.Str(path, v)
	r.Set(err)
	return s
}

// NonEmpty reads a string that is not blank.
func (r *Reader) NonEmpty(path string, v any) string {
	if r.Err != nil {
		return ""
	}
	s, err := engine.NonEmptyStr(path, v)
	r.Set(err)
	return s
}

// OptStr reads a string or null.
func (r *Reader) OptStr(path string, v any) *string {
	if r.Err != nil {
		return nil
	}
	s, err := engine.NullableStr(path, v)
	r.Set(err)
	return s
}

// Int reads an integer that fits an int.
func (r *Reader) Int(path string, v any) int {
	if r.Err != nil {
		return 0
	}
	n, err := engine.Int(path, v)
	r.Set(err)
	if err == nil && (n < -1<<31 || n > 1<<31-1) {
		r.Fail(path, "integer %d is out of range", n)
	}
	return int(n)
}

// StrList reads a list of strings.
func (r *Reader) StrList(path string, v any) []string {
	if r.Err != nil {
		return nil
	}
	l, err := engine.StrList(path, v)
	r.Set(err)
	return l
}

// List reads a list.
func (r *Reader) List(path string, v any) []any {
	if r.Err != nil {
		return nil
	}
	l, err := engine.List(path, v)
	r.Set(err)
	return l
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
