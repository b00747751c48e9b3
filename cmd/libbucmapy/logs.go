package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// maxLogLines bounds the warnings a run keeps for its caller.
const maxLogLines = 1000

// logBuffer keeps a run's warnings (slog's text lines) for the caller,
// which shows them as its own warnings; verbose runs log at debug level
// on standard error as well (every message exchanged).
type logBuffer struct {
	mu      sync.Mutex
	kept    []string
	dropped int
	verbose bool
}

func newLogBuffer(verbose bool) *logBuffer { return &logBuffer{verbose: verbose} }

// Write receives one record's line.
func (b *logBuffer) Write(p []byte) (int, error) {
	if b.verbose {
		_, _ = os.Stderr.Write(p)
	}
	if bytes.Contains(p, []byte("level=DEBUG")) || bytes.Contains(p, []byte("level=INFO")) {
		return len(p), nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.kept) < maxLogLines {
		b.kept = append(b.kept, strings.TrimRight(string(p), "\n"))
	} else {
		b.dropped++
	}
	return len(p), nil
}

func (b *logBuffer) logger() *slog.Logger {
	level := slog.LevelWarn
	if b.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: level, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// lines are the warnings kept so far.
func (b *logBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]string{}, b.kept...)
	if b.dropped > 0 {
		out = append(out, fmt.Sprintf("level=WARN msg=\"more warnings, not kept\" count=%d", b.dropped))
	}
	return out
}
