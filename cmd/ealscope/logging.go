package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/adrg/xdg"
)

// Logs go to a file, never to the screen (a TUI owns the terminal, and scripts read stdout):
// $XDG_STATE_HOME/ealscope/ealscope.log, one JSON object per line, so untrusted text
// (provider error messages, paths) is escaped by the encoder. API keys are never logged.

// logPath is the log file.
func logPath() string { return filepath.Join(xdg.StateHome, "ealscope", "ealscope.log") }

// setupLogging points slog's default logger at the log file at level ("off" logs nothing).
// It returns a closer for the file.
func setupLogging(level string) (io.Closer, error) {
	var lv slog.Level
	switch level {
	case "off":
		slog.SetDefault(slog.New(slog.NewJSONHandler(io.Discard, nil)))
		return io.NopCloser(nil), nil
	case "debug":
		lv = slog.LevelDebug
	case "info", "":
		lv = slog.LevelInfo
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	default:
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn, error or off", level)
	}
	path := logPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("log file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file %s: %w", path, err)
	}
	slog.SetDefault(slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: lv})))
	return f, nil
}
