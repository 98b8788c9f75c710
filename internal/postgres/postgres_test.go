package postgres_test

import (
	"context"
	"strings"
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

// A database that has later migrations but lacks an earlier one (it landed
// after them) gets it at the next start rather than refusing to start.
func TestMigrationLandedOutOfOrder(t *testing.T) {
	url := pgtest.NewEmpty(t)
	ctx := context.Background()
	pool, err := postgres.OpenSystem(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	// As if 00018 had not existed when this database was last migrated.
	if _, err := pool.Exec(ctx, `DROP TABLE pending_objects`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM goose_db_version WHERE version_id = 18`); err != nil {
		t.Fatal(err)
	}
	applied, err := postgres.Migrate(ctx, pool)
	if err != nil {
		t.Fatalf("start with a missing earlier migration: %v", err)
	}
	if len(applied) != 1 || !strings.Contains(applied[0], "00018_") {
		t.Fatalf("applied %v, want 00018 alone", applied)
	}
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('pending_objects') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		t.Fatalf("pending_objects after the start: %v (%v)", exists, err)
	}
}
