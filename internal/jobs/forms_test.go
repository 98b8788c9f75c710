package jobs_test

import (
	"context"
	"testing"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// The purge job deletes the form token claims older than a day in every
// company, finished or not, and keeps the recent ones.
func TestPurgeFormTokens(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a, b := fixtures.Company(t, db), fixtures.Company(t, db)
	for _, c := range [][]any{
		{a, "00000000-0000-4000-8000-000000000001", "/drivers/1", "25 hours"}, // old, finished
		{a, "00000000-0000-4000-8000-000000000002", "/drivers/2", "23 hours"}, // recent
		{b, "00000000-0000-4000-8000-000000000003", nil, "3 days"},            // old, never finished
		{b, "00000000-0000-4000-8000-000000000004", nil, "1 minute"},          // running
	} {
		if _, err := db.Exec(ctx, `INSERT INTO form_submissions (company_id, token, result_url, created_at)
			VALUES ($1, $2, $3, now() - $4::interval)`, c...); err != nil {
			t.Fatal(err)
		}
	}
	client, events := startClient(t, db)
	if _, err := client.Insert(ctx, jobs.PurgeFormTokensArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	awaitJob(t, events, jobs.PurgeFormTokensArgs{}.Kind())
	rows, err := db.Query(ctx, `SELECT token::text FROM form_submissions ORDER BY token`)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		left = append(left, k[len(k)-1:])
	}
	if len(left) != 2 || left[0] != "2" || left[1] != "4" {
		t.Fatalf("after the purge the tokens left end in %v, want [2 4]", left)
	}
}
