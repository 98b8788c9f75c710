package jobs_test

import (
	"context"
	"testing"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// The purge job deletes the expired idempotency keys of every company and
// keeps the others.
func TestPurgeIdempotencyKeys(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a, b := fixtures.Company(t, db), fixtures.Company(t, db)
	for _, c := range [][]any{{a, "old", "-1 minute"}, {a, "new", "23 hours"}, {b, "old", "-25 hours"}, {b, "running", "1 hour"}} {
		if _, err := db.Exec(ctx, `INSERT INTO idempotency_keys (company_id, key, method, path, expires_at)
			VALUES ($1, $2, 'POST', '/api/v0/drivers', now() + $3::interval)`, c...); err != nil {
			t.Fatal(err)
		}
	}
	client, events := startClient(t, db)
	if _, err := client.Insert(ctx, jobs.PurgeIdempotencyKeysArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	awaitJob(t, events, jobs.PurgeIdempotencyKeysArgs{}.Kind())
	rows, err := db.Query(ctx, `SELECT key FROM idempotency_keys ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		left = append(left, k)
	}
	if len(left) != 2 || left[0] != "new" || left[1] != "running" {
		t.Fatalf("after the purge the keys are %v, want [new running]", left)
	}
}
