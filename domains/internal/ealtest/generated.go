package ealtest

import (
	"bytes"
	"testing"
)

// CheckSeededBytes: a generator gives the same bytes for the same (n, seed) and other bytes
// for seed+1. It returns the bytes of (n, seed) for the caller's further checks.
func CheckSeededBytes(t *testing.T, generate func(n int, seed uint64) ([]byte, error), n int, seed uint64) []byte {
	t.Helper()
	a, err := generate(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("seed %d: the same seed gave different bytes", seed)
	}
	other, err := generate(n, seed+1)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, other) {
		t.Fatalf("seeds %d and %d gave the same bytes", seed, seed+1)
	}
	return a
}
