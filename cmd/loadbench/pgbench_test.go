package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestReplayP99: a replay's p99 comes from pgbench's log of its
// transactions' latencies, so a replay of a statement that takes at least
// 20 ms reports a p99 of at least 20 ms, and not a timestamp or a script
// number read from another field of the log.
func TestReplayP99(t *testing.T) {
	_, url := pgtest.NewWithURL(t, nil)
	script := filepath.Join(t.TempDir(), "sleep.sql")
	if err := os.WriteFile(script, []byte("SELECT pg_sleep(0.02);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runPgbench(url, uuid.New(), customPlans, nil, []string{script}, 4, 2*time.Second)
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	if r.Count < 100 || r.TPS <= 0 {
		t.Fatalf("%d replays, %.1f a second: want about 400 (4 clients, 2 s, 20 ms each)", r.Count, r.TPS)
	}
	if r.P99 < 20 || r.P99 > 2000 {
		t.Errorf("p99 %.2f ms, average %.2f ms: want at least the statement's 20 ms, and not more than the run", r.P99, r.Latency)
	}
}
