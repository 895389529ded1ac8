package rowchunk

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
)

func sampleRows(n int) [][]byte {
	var rows [][]byte
	for i := range n {
		rows = append(rows, fmt.Appendf(nil, `{"call_id": "c%05d", "messages": [{"role": "user", "content": "approve purchase order %d for the vendor"}]}`, i, i*7))
	}
	return rows
}

// oneChunk builds one chunk of rows and returns it with each row's reference.
func oneChunk(rows [][]byte) ([]byte, []Ref) {
	var b Builder
	var refs []Ref
	for _, r := range rows {
		refs = append(refs, b.Add(r))
	}
	return b.Take(), refs
}

func TestRoundTrip(t *testing.T) {
	var b Builder
	rows := sampleRows(MaxRows)
	var refs []Ref
	for i, r := range rows {
		refs = append(refs, b.Add(r))
		if b.Full() != (i == MaxRows-1) {
			t.Fatalf("row %d: Full() = %v", i, b.Full())
		}
	}
	raw := b.Take()
	if b.Rows() != 0 {
		t.Fatal("Take did not start a new chunk")
	}
	data := Compress(raw)
	if len(data) >= len(raw)/4 {
		t.Errorf("similar rows compress only from %d to %d bytes", len(raw), len(data))
	}
	back, err := Decompress(data, int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	for i, ref := range refs {
		row, err := Row(back, ref)
		if err != nil || !bytes.Equal(row, rows[i]) {
			t.Fatalf("row %d: %q, %v", i, row, err)
		}
	}
}

func TestDamageIsReported(t *testing.T) {
	rows := sampleRows(10)
	raw, refs := oneChunk(rows)
	data := Compress(raw)
	if _, err := Decompress(data, int64(len(raw))+1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("wrong stored length: %v", err)
	}
	if _, err := Decompress(data, MaxChunkBytes+1); !errors.Is(err, ErrCorrupt) {
		t.Errorf("oversized claim: %v", err)
	}
	bad := bytes.Clone(raw)
	bad[refs[3].Offset] ^= 1
	if _, err := Row(bad, refs[3]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("changed row: %v", err)
	}
	if row, err := Row(bad, refs[4]); err != nil || !bytes.Equal(row, rows[4]) {
		t.Errorf("untouched row: %q %v", row, err)
	}
	if _, err := Row(raw, Ref{Offset: len(raw) - 2, Length: 5, SHA256: refs[0].SHA256}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("reference past the end: %v", err)
	}
}

// FuzzChunkRead feeds arbitrary stored chunks and row references to the reader: it must never
// panic or allocate beyond its bound, and whatever it hands back must hash to the reference.
func FuzzChunkRead(f *testing.F) {
	rows := sampleRows(5)
	raw, refs := oneChunk(rows)
	data := Compress(raw)
	f.Add(data, int64(len(raw)), refs[2].Offset, refs[2].Length, refs[2].SHA256[:])
	f.Add(data, int64(len(raw)), 0, len(raw), []byte{1, 2, 3})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0x58, 0, 0, 0}, int64(1<<40), 0, 1, make([]byte, 32))
	f.Fuzz(func(t *testing.T, data []byte, rawLen int64, off, length int, sum []byte) {
		out, err := Decompress(data, rawLen)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not marked corrupt: %v", err)
			}
			return
		}
		if int64(len(out)) != rawLen {
			t.Fatalf("%d bytes for a claimed %d", len(out), rawLen)
		}
		s, err := SHA256From(sum)
		if err != nil {
			return
		}
		row, err := Row(out, Ref{Offset: off, Length: length, SHA256: s})
		if err == nil && sha256.Sum256(row) != s {
			t.Fatal("a row was handed back that does not match its hash")
		}
	})
}
