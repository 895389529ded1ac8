package replay

import (
	"context"
	"sync"
)

type poolResult[R any] struct {
	i  int
	r  R
	ok bool
}

// runOrdered runs work(i) for every i in [0, n) on a bounded pool of workers and hands the
// results to emit in index order, from the calling goroutine only, so output files are
// written in plan order (byte-identical between runs) while work proceeds in parallel. The
// number of started-but-not-emitted items is bounded, so a slow early item cannot make the
// rest pile up in memory.
//
// work reports ok=false when ctx was cancelled before it finished. Once ctx is done no new
// item starts; every item that did finish is still emitted, in index order, skipping the
// unfinished ones. all is true when every item finished and was emitted.
func runOrdered[R any](ctx context.Context, n, workers int, work func(ctx context.Context, i int) (R, bool), emit func(i int, r R) error) (all bool, err error) {
	if workers < 1 {
		workers = 1
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	window := make(chan struct{}, workers*16+64)
	jobs := make(chan int)
	results := make(chan poolResult[R], workers)
	go func() {
		defer close(jobs)
		for i := 0; i < n; i++ {
			select {
			case window <- struct{}{}:
			case <-inner.Done():
				return
			}
			select {
			case jobs <- i:
			case <-inner.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, ok := work(inner, i)
				results <- poolResult[R]{i: i, r: r, ok: ok}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := map[int]poolResult[R]{}
	next, emitted := 0, 0
	for res := range results {
		pending[res.i] = res
		for {
			p, ready := pending[next]
			if !ready {
				break
			}
			delete(pending, next)
			next++
			<-window
			if !p.ok || err != nil {
				continue
			}
			if e := emit(p.i, p.r); e != nil {
				err = e
				cancel()
				continue
			}
			emitted++
		}
	}
	// Items after a gap (an index that never started or never finished) are emitted now.
	if err == nil {
		for i := next; i < n; i++ {
			p, ready := pending[i]
			if !ready || !p.ok {
				continue
			}
			if e := emit(p.i, p.r); e != nil {
				return false, e
			}
			emitted++
		}
	}
	return err == nil && emitted == n, err
}
