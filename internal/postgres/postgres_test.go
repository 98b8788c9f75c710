package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// Several instances starting at once on an empty database: one migrates,
// the others wait for the lock and find nothing left to do.
func TestConcurrentMigrations(t *testing.T) {
	url := pgtest.NewEmpty(t)
	ctx := context.Background()
	const instances = 4
	applied := make([][]string, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	for i := range instances {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pool, err := postgres.OpenSystem(ctx, url, nil)
			if err != nil {
				errs[i] = err
				return
			}
			defer pool.Close()
			applied[i], errs[i] = postgres.Migrate(ctx, pool)
		}()
	}
	wg.Wait()
	total := 0
	seen := map[string]int{}
	for i := range instances {
		if errs[i] != nil {
			t.Fatalf("instance %d: %v", i, errs[i])
		}
		total += len(applied[i])
		for _, m := range applied[i] {
			if seen[m]++; seen[m] > 1 {
				t.Errorf("migration %s applied twice", m)
			}
		}
	}
	pool, err := postgres.OpenSystem(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	again, err := postgres.Migrate(ctx, pool)
	if err != nil || len(again) != 0 {
		t.Fatalf("a later start applied %v (%v); want nothing", again, err)
	}
	var tables int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_name IN ('drivers', 'penalties', 'river_job')`).Scan(&tables); err != nil || tables != 3 {
		t.Fatalf("tables after migration: %d (%v)", tables, err)
	}
	if total == 0 {
		t.Fatal("no instance applied anything")
	}
}
