package main

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// anyString is a JSON scalar as text (DuckDB's JSON rows give big integers as strings).
func anyString(v any) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(v)
}

func optFloat(v any) *float64 {
	if v == nil {
		return nil
	}
	f, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	if err != nil {
		return nil
	}
	return &f
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// wantEq compares a number DuckDB returned (string, json.Number or float64) with want.
func wantEq(t *testing.T, what string, got any, want int) {
	t.Helper()
	if got == nil && want == 0 {
		return
	}
	if s := anyString(got); s != strconv.Itoa(want) {
		t.Errorf("%s: SQL %s, summary %d", what, s, want)
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
