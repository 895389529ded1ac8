package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// untilStopped runs a command that writes results (run, replay, safeguards) with a context
// cancelled on Ctrl-C or SIGTERM: the command then stops cleanly, keeps what it finished and
// says so, instead of dying halfway through a write.
func untilStopped(g *Globals, run func(context.Context, *Globals) error) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, g)
}
