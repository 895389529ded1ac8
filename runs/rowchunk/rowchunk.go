// Package rowchunk stores the workspace's large rows compressed: consecutive rows of one
// artifact are concatenated into a chunk and the chunk is compressed with zstd. Each row keeps
// its offset and length in the chunk and the sha256 of its bytes, so reading one row costs
// decompressing one chunk, and every read checks the row's hash: a damaged chunk is reported,
// never handed back as different bytes. It knows nothing of SQLite; package runs stores the
// chunks and the references (docs/BENCHMARKS.md, "Compressed rows").
package rowchunk

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Codec is the name stored with each chunk: what Decompress expects.
const Codec = "zstd"

// A chunk is sealed once it holds MaxRows rows or MaxBytes bytes, whichever comes first.
// Compression gains from many similar rows together (a 60-case run's rows: 20x in chunks of
// 64, 2.5x row by row); reading one row decompresses its whole chunk, which at these sizes is
// well under a millisecond.
const (
	MaxRows  = 64
	MaxBytes = 512 << 10
	// MaxChunkBytes bounds a chunk's decompressed size as read back: a chunk that claims
	// more is refused before anything is allocated. A chunk holds at most MaxBytes plus one
	// row, and a row is at most a run file's longest line.
	MaxChunkBytes = 256 << 20
)

// ErrCorrupt is wrapped by every error reporting a chunk or a row that does not read back as
// it was stored.
var ErrCorrupt = errors.New("corrupt stored row")

// Ref locates one row in its chunk.
type Ref struct {
	Offset, Length int
	SHA256         [32]byte
}

// Builder accumulates the rows of one chunk.
type Builder struct {
	raw  []byte
	rows int
}

// Add appends a row and returns where it is in the chunk.
func (b *Builder) Add(row []byte) Ref {
	return b.AddHashed(row, sha256.Sum256(row))
}

// AddHashed is Add for a row whose sha256 is already known.
func (b *Builder) AddHashed(row []byte, sum [32]byte) Ref {
	ref := Ref{Offset: len(b.raw), Length: len(row), SHA256: sum}
	b.raw = append(b.raw, row...)
	b.rows++
	return ref
}

// Rows is how many rows the chunk holds.
func (b *Builder) Rows() int { return b.rows }

// Full says the chunk should be sealed.
func (b *Builder) Full() bool { return b.rows >= MaxRows || len(b.raw) >= MaxBytes }

// Take hands back the chunk's bytes and starts an empty chunk.
func (b *Builder) Take() []byte {
	raw := b.raw
	b.raw, b.rows = nil, 0
	return raw
}

var (
	encoder *zstd.Encoder
	decoder *zstd.Decoder
)

func init() {
	var err error
	// The fastest level: an import compresses every large row once, and the chunks of
	// similar rows compress about twentyfold at it already. No frame checksum: every row
	// carries its own sha256.
	encoder, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		panic(err)
	}
	decoder, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxMemory(MaxChunkBytes), zstd.WithDecoderMaxWindow(MaxChunkBytes))
	if err != nil {
		panic(err)
	}
}

// Compress compresses a chunk's bytes. It is safe for concurrent use.
func Compress(raw []byte) []byte {
	return encoder.EncodeAll(raw, make([]byte, 0, len(raw)/8+64))
}

// Decompress restores a chunk of rawLen bytes. It is safe for concurrent use, and bounded:
// a chunk that claims more than MaxChunkBytes, or decompresses to other than rawLen bytes,
// is refused as corrupt.
func Decompress(data []byte, rawLen int64) ([]byte, error) {
	if rawLen < 0 || rawLen > MaxChunkBytes {
		return nil, fmt.Errorf("%w: the chunk claims %d bytes", ErrCorrupt, rawLen)
	}
	// One byte of room beyond rawLen, so a chunk holding more than it claims is caught.
	out, err := decoder.DecodeAll(data, make([]byte, 0, rawLen+1))
	if err != nil {
		return nil, fmt.Errorf("%w: the chunk does not decompress: %v", ErrCorrupt, err)
	}
	if int64(len(out)) != rawLen {
		return nil, fmt.Errorf("%w: the chunk holds %d bytes, %d were stored", ErrCorrupt, len(out), rawLen)
	}
	return out, nil
}

// Row cuts one row out of a decompressed chunk and checks its hash. The row shares raw's
// memory.
func Row(raw []byte, ref Ref) ([]byte, error) {
	if ref.Offset < 0 || ref.Length < 0 || ref.Offset > len(raw) || ref.Length > len(raw)-ref.Offset {
		return nil, fmt.Errorf("%w: bytes %d+%d are outside the chunk's %d", ErrCorrupt, ref.Offset, ref.Length, len(raw))
	}
	row := raw[ref.Offset : ref.Offset+ref.Length]
	if sum := sha256.Sum256(row); !bytes.Equal(sum[:], ref.SHA256[:]) {
		return nil, fmt.Errorf("%w: the row's bytes do not match its sha256", ErrCorrupt)
	}
	return row, nil
}

// SHA256From reads a stored sha256 (32 bytes).
func SHA256From(b []byte) ([32]byte, error) {
	var sum [32]byte
	if len(b) != len(sum) {
		return sum, fmt.Errorf("%w: the row's sha256 is %d bytes, not 32", ErrCorrupt, len(b))
	}
	copy(sum[:], b)
	return sum, nil
}
