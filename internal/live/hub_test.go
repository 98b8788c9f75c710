package live_test

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/live"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/webhooks"
)

func emit(t testing.TB, db *pgxpool.Pool, company uuid.UUID, n int) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	for i := range n {
		if err := webhooks.Emit(ctx, tx, company, webhooks.ImportCompleted, map[string]any{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHubDropsAStalledClient: a subscriber that does not read is dropped
// when its buffer is full, while 200 that read get every event, and the
// hub's memory does not grow with the events handed out.
func TestHubDropsAStalledClient(t *testing.T) {
	db := pgtest.New(t)
	company := fixtures.Company(t, db)
	hub := live.NewHub(db, live.HubOptions{Buffer: 32, Poll: 500 * time.Millisecond})
	hub.Start()
	defer hub.Close()
	ctx := context.Background()

	stalled, err := hub.Subscribe(ctx, company)
	if err != nil {
		t.Fatal(err)
	}
	const readers = 200
	var got atomic.Int64
	var wg sync.WaitGroup
	subs := make([]*live.Sub, readers)
	for i := range subs {
		s, err := hub.Subscribe(ctx, company)
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-s.C:
					got.Add(1)
				case <-s.Done:
					return
				}
			}
		}()
	}
	const rounds, per = 20, 10
	var before uint64
	for r := range rounds {
		emit(t, db, company, per)
		time.Sleep(50 * time.Millisecond)
		if r == 2 {
			before = heap() // the stalled client's buffer is full by now
		}
	}
	want := int64(readers * rounds * per)
	deadline := time.Now().Add(5 * time.Second)
	for got.Load() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got.Load() != want {
		t.Fatalf("readers got %d events, want %d", got.Load(), want)
	}
	select {
	case <-stalled.Done:
	default:
		t.Fatal("the stalled subscriber is still open")
	}
	if stalled.Reason() != live.DropSlow || hub.Dropped.Load() != 1 {
		t.Fatalf("reason %q, dropped %d", stalled.Reason(), hub.Dropped.Load())
	}
	if n := hub.Streams(); n != readers {
		t.Fatalf("%d streams open, want %d", n, readers)
	}
	if after := heap(); after > before+2<<20 {
		t.Fatalf("heap grew from %d to %d bytes over %d events", before, after, rounds*per)
	}
	hub.Unsubscribe(stalled)
	hub.Close()
	wg.Wait()
	for _, s := range subs {
		if s.Reason() != live.DropShutdown {
			t.Fatalf("after Close: reason %q", s.Reason())
		}
	}
}
