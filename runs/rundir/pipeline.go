package rundir

import (
	"bytes"
	"runtime"
)

// The parse pipeline: one reader goroutine reads (and hashes) a file's lines and cuts them
// into batches; parser workers, one per core, parse the batches; the caller's goroutine takes
// the parsed rows back in file order. Parsing a row depends on nothing but its bytes, while
// what is done with rows (the cross-file index, the SQLite writer) must see them in order:
// so the parsing runs on every core and the ordered part on one. At most pipelineDepth
// batches are in flight, so memory stays bounded whatever the file's size.

// pipeLine is one non-blank line of a file.
type pipeLine struct {
	no   int
	last bool
	raw  []byte
}

// pipeBatch is a run of lines with, once parsed, their rows (or parse errors) and, when the
// reader stopped on an error after these lines, that error.
type pipeBatch struct {
	lines  []pipeLine
	rows   []Row
	errs   []error
	readEr error
	done   chan struct{}
}

const (
	// batchLines and batchBytes bound one batch.
	batchLines = 256
	batchBytes = 1 << 20
)

// pipelineDepth is how many batches may be read ahead of the consumer.
func pipelineDepth() int { return 2*runtime.GOMAXPROCS(0) + 2 }

// parseLines reads sc to its end in a goroutine, parses every non-blank line with parse on
// all cores and calls consume with each line and its parse result, in file order, on the
// calling goroutine. It stops at consume's first error and returns it. A read error (a line
// too long, an I/O error) is returned in its place in the file, after the lines before it;
// with drainOnError the reader then still reads the rest of the file, so sc's hash covers
// all of it. The rows given to consume may alias their line, which is not reused.
func parseLines(sc *lineScanner, drainOnError bool, parse func(no int, raw []byte, last bool) (Row, error),
	consume func(l pipeLine, r Row, perr error) error, readError func(err error) error) error {
	depth := pipelineDepth()
	work := make(chan *pipeBatch, depth)
	order := make(chan *pipeBatch, depth)
	quit := make(chan struct{})
	defer close(quit)
	workers := runtime.GOMAXPROCS(0)
	for range workers {
		go func() {
			for b := range work {
				b.rows = make([]Row, len(b.lines))
				b.errs = make([]error, len(b.lines))
				for i, l := range b.lines {
					b.rows[i], b.errs[i] = parse(l.no, l.raw, l.last)
				}
				close(b.done)
			}
		}()
	}
	go func() {
		defer close(work)
		defer close(order)
		send := func(b *pipeBatch) bool {
			select {
			case order <- b:
			case <-quit:
				return false
			}
			select {
			case work <- b:
			case <-quit:
				return false
			}
			return true
		}
		b := &pipeBatch{done: make(chan struct{})}
		size := 0
		for {
			line, last, ok, err := sc.nextRow()
			if err != nil {
				b.readEr = err
				send(b)
				if drainOnError {
					sc.drain()
				}
				return
			}
			if !ok {
				break
			}
			b.lines = append(b.lines, pipeLine{no: sc.line, last: last, raw: bytes.Clone(line)})
			size += len(line)
			if len(b.lines) >= batchLines || size >= batchBytes {
				if !send(b) {
					return
				}
				b, size = &pipeBatch{done: make(chan struct{})}, 0
			}
		}
		if len(b.lines) > 0 {
			send(b)
		}
	}()
	for b := range order {
		<-b.done
		for i, l := range b.lines {
			if err := consume(l, b.rows[i], b.errs[i]); err != nil {
				return err
			}
		}
		if b.readEr != nil {
			if err := readError(b.readEr); err != nil {
				return err
			}
		}
	}
	return nil
}
