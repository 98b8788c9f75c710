package main

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestRecorderNumbersBatches checks that the capture tells a batch's
// statements (numbered per request from 1) from statements sent alone (0),
// which the bare server then sends the same way.
func TestRecorderNumbersBatches(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	got := &captured{}
	cur := got
	db, _ := pgtest.NewWithURL(t, recorder{&mu, &cur, "system"})
	if _, err := db.Exec(ctx, `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b := &pgx.Batch{}
		b.Queue(`SELECT 2`)
		b.Queue(`SELECT 3`)
		if err := db.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(ctx, `SELECT 4`); err != nil {
		t.Fatal(err)
	}
	var batches []int
	for _, st := range got.Statements {
		batches = append(batches, st.Batch)
	}
	want := []int{0, 1, 1, 2, 2, 0}
	if len(batches) != len(want) {
		t.Fatalf("batches %v, want %v", batches, want)
	}
	for i := range want {
		if batches[i] != want[i] {
			t.Fatalf("batches %v, want %v", batches, want)
		}
	}
}

// TestBareServerRunsTheCapturedStatements checks the bare server: it sends
// a captured request's statements on a request pool connection set to the
// company and to the plan mode the server used, and answers with the
// captured body; a statement that fails makes a 500, an unknown path a 404.
func TestBareServerRunsTheCapturedStatements(t *testing.T) {
	ctx := context.Background()
	_, url := pgtest.NewWithURL(t, nil)
	company := uuid.New()
	// Each statement divides by zero unless the connection is set as the
	// server's would be for this request.
	ok := &captured{Path: "/api/v0/drivers/x/rating?period=2026-10", ContentType: "application/json", Body: []byte(`{"total_score":"81.50"}`),
		Statements: []statement{
			{Pool: "request", Batch: 1, Reused: true, SQL: `SELECT 1 / (current_setting('app.company_id') = $1)::int`, Args: []any{company.String()}},
			{Pool: "request", Batch: 1, Reused: true, SQL: `SELECT 1 / (current_setting('plan_cache_mode') = 'auto')::int`},
			{Pool: "request", Reused: true, SQL: `SELECT 1 / (current_user = $1)::int`, Args: []any{postgres.RequestRole}},
			{Pool: "system", SQL: `SELECT 1 / (current_user <> $1)::int`, Args: []any{postgres.RequestRole}},
		}}
	failing := &captured{Path: "/api/v0/drivers/y", ContentType: "application/json", Body: []byte(`{}`),
		Statements: []statement{{Pool: "request", SQL: `SELECT 1 / (current_setting('plan_cache_mode') = 'auto')::int`}}}
	b, err := startBare(ctx, url, company, []*captured{ok, failing}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer b.close()
	if err := b.warm(ctx, ok, 4); err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string, string) {
		t.Helper()
		res, err := http.Get(b.base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(body)
	}
	for range 8 { // past the five custom plans of reused plans
		if code, ct, body := get(ok.Path); code != http.StatusOK || ct != "application/json" || body != string(ok.Body) {
			t.Fatalf("GET %s: %d %s %q", ok.Path, code, ct, body)
		}
	}
	if code, _, body := get(failing.Path); code != http.StatusInternalServerError {
		t.Errorf("a request on custom plans whose statement checks for reused ones: %d %q, want 500", code, body)
	}
	if code, _, _ := get("/api/v0/drivers/z"); code != http.StatusNotFound {
		t.Errorf("an uncaptured path: %d, want 404", code)
	}
}
