package runs

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"time"
)

// What the import benchmarks (`ealscope bench import` and this package's benchmarks) measure
// besides time: the peak heap of an import and the bytes of the run it read.

// SampleHeapPeak samples the heap in use every interval until stop is closed, then sends the
// largest sample on the returned channel.
func SampleHeapPeak(stop <-chan struct{}, every time.Duration) <-chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// TreeBytes is the total size of the regular files below dir (what can be read of it; a file
// that cannot be statted counts 0).
func TreeBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
