package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/rundir"
)

type benchCmd struct {
	Import    benchImportCmd    `cmd:"" help:"Time ealscope's import of a generated built-in run against a plain reference loader (sha256 + raw rows into SQLite) and print the ratio."`
	Reference benchReferenceCmd `cmd:"" help:"Run only the plain reference loader on a run directory (to time it as a process beside 'ealscope import')."`
}

// benchImportCmd generates a run with the built-in pipeline (scripted writer, built-in
// executor, as `ealscope run --builtin` makes) over a generated corpus, then times, in this
// one process and alternately, ealscope's full import into a fresh workspace and
// runs.RunReferenceLoader (the baseline doing what a plain Python loader does). Each is timed
// --repeat times and the best of each is compared, so that a busy machine slows both alike.
type benchImportCmd struct {
	Cases      int    `default:"300" help:"Generated cases in the corpus the run is made over."`
	Conditions string `default:"all" help:"Comma list of conditions (or all)."`
	Dir        string `type:"path" help:"Keep the generated corpus and run here (reused when it already holds them); default: a temporary directory removed at the end."`
	Repeat     int    `default:"3" help:"Timings of each loader (alternating); the best of each is compared."`
	Seed       int64  `default:"20260821" help:"Run seed."`
	JSON       bool   `name:"json" help:"Print the figures as JSON."`
	CPUProfile string `name:"cpuprofile" type:"path" help:"Write a CPU profile of the first ealscope import to this file (go tool pprof)."`
}

// benchTiming is one loader's figures.
type benchTiming struct {
	Seconds []float64 `json:"seconds"`
	Best    float64   `json:"best_seconds"`
	// CPUSeconds are the process's user+system CPU time over each timing (all goroutines,
	// SQLite included): steadier than wall time on a shared machine.
	CPUSeconds []float64 `json:"cpu_seconds"`
	// Rows are the rows written: for ealscope raw and derived rows (its report), for the
	// reference loader the raw rows.
	Rows       int     `json:"rows"`
	RowsPerSec float64 `json:"rows_per_second"`
	PeakHeapMB float64 `json:"peak_heap_mb,omitempty"`
	// DatabaseBytes is the database's size after the loader closed it (the file plus what is
	// left of its WAL after the close's checkpoint), largest of the repeats.
	DatabaseBytes int64 `json:"database_bytes"`
	// BytesPerRunByte is DatabaseBytes over the run directory's size.
	BytesPerRunByte float64 `json:"database_bytes_per_run_byte"`
}

type benchImportResult struct {
	Cases      int         `json:"cases"`
	Conditions string      `json:"conditions"`
	RunDir     string      `json:"run_dir"`
	RunBytes   int64       `json:"run_bytes"`
	RunRows    int         `json:"run_rows"`
	Ealscope   benchTiming `json:"ealscope"`
	Reference  benchTiming `json:"reference"`
	// Ratio is ealscope's best time over the reference loader's best time.
	Ratio float64 `json:"ratio"`
	// MedianRatio is the median over the repeats of ealscope's time over the reference's
	// time of the same repeat (the two ran one after the other).
	MedianRatio float64 `json:"median_pair_ratio"`
	// PeakRSSMB is the process's peak resident set (VmHWM) at the end: the imports' peak when
	// the run was reused (--dir), else the run generation's may be larger.
	PeakRSSMB float64 `json:"peak_rss_mb"`
}

func (c *benchImportCmd) Run(g *Globals) error {
	if c.Cases < 1 || c.Cases > maxGenCases {
		return fmt.Errorf("bench import: --cases must be between 1 and %d, got %d", maxGenCases, c.Cases)
	}
	if c.Repeat < 1 {
		return fmt.Errorf("bench import: --repeat must be at least 1")
	}
	ctx := context.Background()
	work, err := os.MkdirTemp("", "ealscope-bench-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	dir := c.Dir
	if dir == "" {
		dir = filepath.Join(work, "data")
	}
	corpus, runDir, err := c.prepare(ctx, g, dir)
	if err != nil {
		return err
	}
	res := benchImportResult{Cases: c.Cases, Conditions: c.Conditions, RunDir: runDir, RunBytes: runs.TreeBytes(runDir)}
	for i := 0; i < c.Repeat; i++ {
		// Alternate which loader goes first, so neither always meets a cold or warm cache.
		order := []bool{true, false}
		if i%2 == 1 {
			order = []bool{false, true}
		}
		for _, ours := range order {
			db := filepath.Join(work, fmt.Sprintf("db-%d-%t.db", i, ours))
			if ours {
				stopProfile := func() {}
				if c.CPUProfile != "" && i == 0 {
					if stopProfile, err = startCPUProfile(c.CPUProfile); err != nil {
						return err
					}
				}
				cpu0 := processCPU()
				secs, rows, peak, err := timeEalscopeImport(ctx, db, corpus, runDir)
				res.Ealscope.CPUSeconds = append(res.Ealscope.CPUSeconds, processCPU()-cpu0)
				stopProfile()
				if err != nil {
					return err
				}
				res.Ealscope.Seconds = append(res.Ealscope.Seconds, secs)
				res.Ealscope.Rows = rows
				res.Ealscope.PeakHeapMB = max(res.Ealscope.PeakHeapMB, peak)
				res.Ealscope.DatabaseBytes = max(res.Ealscope.DatabaseBytes, databaseBytes(db))
				fmt.Fprintf(g.Stderr, "ealscope import %d/%d: %.2f s\n", i+1, c.Repeat, secs)
			} else {
				runtime.GC()
				cpu0 := processCPU()
				ref, err := runs.RunReferenceLoader(ctx, runDir, db)
				res.Reference.CPUSeconds = append(res.Reference.CPUSeconds, processCPU()-cpu0)
				if err != nil {
					return err
				}
				res.Reference.Seconds = append(res.Reference.Seconds, ref.Elapsed.Seconds())
				res.Reference.Rows = ref.Rows
				res.RunRows = ref.Rows
				res.Reference.DatabaseBytes = max(res.Reference.DatabaseBytes, databaseBytes(db))
				fmt.Fprintf(g.Stderr, "reference load %d/%d: %.2f s\n", i+1, c.Repeat, ref.Elapsed.Seconds())
			}
			removeDB(db)
		}
	}
	for _, t := range []*benchTiming{&res.Ealscope, &res.Reference} {
		t.Best = t.Seconds[0]
		for _, s := range t.Seconds {
			t.Best = min(t.Best, s)
		}
		t.RowsPerSec = float64(t.Rows) / t.Best
		t.BytesPerRunByte = float64(t.DatabaseBytes) / float64(max(1, res.RunBytes))
	}
	res.Ratio = res.Ealscope.Best / res.Reference.Best
	var pairs []float64
	for i := range res.Ealscope.Seconds {
		pairs = append(pairs, res.Ealscope.Seconds[i]/res.Reference.Seconds[i])
	}
	res.MedianRatio = median(pairs)
	res.PeakRSSMB = float64(peakRSSKiB()) / 1024
	if c.JSON {
		return writeJSON(g.Stdout, res)
	}
	w := g.text()
	fmt.Fprintf(w, "run: %d cases, conditions %s, %d rows in %.1f MB (%s)\n", res.Cases, res.Conditions, res.RunRows, float64(res.RunBytes)/1e6, res.RunDir)
	fmt.Fprintf(w, "ealscope import:  best %.2f s of %d, %d rows written (raw and derived), %.0f rows/s, peak heap %.0f MB, workspace %.1f MB (%.3f bytes per run byte)\n",
		res.Ealscope.Best, c.Repeat, res.Ealscope.Rows, res.Ealscope.RowsPerSec, res.Ealscope.PeakHeapMB, float64(res.Ealscope.DatabaseBytes)/1e6, res.Ealscope.BytesPerRunByte)
	fmt.Fprintf(w, "reference loader: best %.2f s of %d, %d raw rows, %.0f rows/s, database %.1f MB (%.3f bytes per run byte; sha256 + raw rows into SQLite, one transaction)\n",
		res.Reference.Best, c.Repeat, res.Reference.Rows, res.Reference.RowsPerSec, float64(res.Reference.DatabaseBytes)/1e6, res.Reference.BytesPerRunByte)
	fmt.Fprintf(w, "ratio (ealscope / reference): %.2f best to best, %.2f median of the %d pairs (best CPU time: %.2f s / %.2f s)\n",
		res.Ratio, res.MedianRatio, len(pairs), minOf(res.Ealscope.CPUSeconds), minOf(res.Reference.CPUSeconds))
	fmt.Fprintf(w, "peak RSS of this process: %.0f MB\n", res.PeakRSSMB)
	return nil
}

// prepare makes (or, when dir already holds them, reuses) the corpus and the run.
func (c *benchImportCmd) prepare(ctx context.Context, g *Globals, dir string) (corpus, runDir string, err error) {
	corpus, runDir = filepath.Join(dir, "corpus.jsonl"), filepath.Join(dir, "run")
	if _, err := os.Stat(filepath.Join(runDir, rundir.ManifestFile)); err == nil {
		if _, err := os.Stat(corpus); err == nil {
			fmt.Fprintf(g.textErr(), "reusing the run in %s (its cases and conditions are those it was made with)\n", dir)
			c.Cases, c.Conditions = countLines(corpus), "as made"
			return corpus, runDir, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	gen, err := domains.Generator(domains.Default)
	if err != nil {
		return "", "", err
	}
	if err := writeFileAtomic(corpus, func(w io.Writer) error {
		_, err := gen.GenerateCorpus(w, c.Cases, 7)
		return err
	}); err != nil {
		return "", "", err
	}
	fmt.Fprintf(g.Stderr, "generating a run over %d cases (%s)...\n", c.Cases, c.Conditions)
	if _, err := (replay.ScriptedRun{Domain: domains.Default, Corpus: corpus, Conditions: c.Conditions, Seed: c.Seed,
		Version: ealscopeVersion, Out: runDir, Concurrency: 8}).Make(ctx); err != nil {
		return "", "", err
	}
	return corpus, runDir, nil
}

// timeEalscopeImport imports the corpus and the run into a fresh workspace, as `ealscope
// import --corpus CORPUS RUN` does, sampling the heap in use meanwhile.
func timeEalscopeImport(ctx context.Context, db, corpus, runDir string) (secs float64, rows int, peakMB float64, err error) {
	runtime.GC()
	stop := make(chan struct{})
	peakc := runs.SampleHeapPeak(stop, 50*time.Millisecond)
	start := time.Now()
	s, err := runs.Open(db)
	if err == nil {
		var rep runs.ImportReport
		rep, err = s.Import(ctx, []string{runDir}, runs.ImportOptions{Corpora: []string{corpus}})
		for _, r := range rep.Results {
			for _, n := range r.Rows {
				rows += n
			}
		}
		if cerr := s.Close(); err == nil {
			err = cerr
		}
	}
	secs = time.Since(start).Seconds()
	close(stop)
	peak := <-peakc
	if err != nil {
		return 0, 0, 0, fmt.Errorf("bench import: %w", err)
	}
	return secs, rows, float64(peak) / 1e6, nil
}

// processCPU is the process's user+system CPU time so far, in seconds.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func minOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// databaseBytes is a closed SQLite database's size: the file and its WAL, if any is left.
func databaseBytes(db string) int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if st, err := os.Stat(db + suffix); err == nil {
			n += st.Size()
		}
	}
	return n
}

// peakRSSKiB is the process's peak resident set so far (getrusage's ru_maxrss, KiB on Linux).
func peakRSSKiB() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func removeDB(db string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(db + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(os.Stderr, "bench import:", err)
		}
	}
}

// countLines counts a file's lines (a reused corpus's cases), 0 when it cannot be read.
func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(b, []byte("\n"))
}
