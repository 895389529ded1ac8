package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReferenceLoaderParts splits the reference loader's time (see ReferenceLoad) into
// reading and hashing every file (read_and_hash) and the whole load with every row stored raw
// (full). The difference is what storing the raw rows costs by itself in SQLite through this
// driver: the floor of any importer that keeps those rows byte for byte in the workspace, as
// ealscope's does (docs/BENCHMARKS.md, "Import speed").
//
//	EALSCOPE_BENCH_CASES=300 EALSCOPE_BENCH_CONDITIONS=all go test ./runs -run '^$' -bench ReferenceLoaderParts -benchtime 3x
func BenchmarkReferenceLoaderParts(b *testing.B) {
	benchFixture(b)
	ctx := context.Background()
	files, err := referenceFiles(benchRunDir)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read_and_hash", func(b *testing.B) {
		for b.Loop() {
			var out ReferenceLoad
			if err := referenceReadFiles(ctx, nil, benchRunDir, files, &out); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(out.Bytes)
		}
	})
	b.Run("full", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			db := filepath.Join(benchTmp, fmt.Sprintf("reference-%d.db", i))
			out, err := RunReferenceLoader(ctx, benchRunDir, db)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(out.Bytes)
			b.StopTimer()
			for _, suffix := range []string{"", "-wal", "-shm"} {
				os.Remove(db + suffix)
			}
			b.StartTimer()
		}
	})
}
