package idempotency_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/idempotency"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestTakenOverClaimCannotFinishOrForget: once a key is taken over, the
// request that claimed it first can neither store its answer under the key
// nor release it; the request that took it over can.
func TestTakenOverClaimCannotFinishOrForget(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	company := fixtures.Company(t, db)
	s := idempotency.NewStore(db, time.Minute)
	begin := func(r idempotency.Request, want idempotency.State) idempotency.Stored {
		t.Helper()
		state, st, err := s.Begin(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if state != want {
			t.Fatalf("Begin: state %d, want %d", state, want)
		}
		return st
	}
	first := idempotency.Request{CompanyID: company, UserID: uuid.New(), Role: "admin", Key: "k", Method: "POST",
		Path: "/api/v0/drivers", Claim: uuid.New()}
	begin(first, idempotency.Started)
	second := first
	second.Claim = uuid.New()
	begin(second, idempotency.Running)
	if _, err := db.Exec(ctx, `UPDATE idempotency_keys SET created_at = now() - interval '11 minutes'`); err != nil {
		t.Fatal(err)
	}
	begin(second, idempotency.Started) // taken over

	third := first
	third.Claim = uuid.New()
	if err := s.Finish(ctx, first, "hash", 201, "application/json", []byte(`{"first": true}`)); err != nil {
		t.Fatal(err)
	}
	begin(third, idempotency.Running)
	if err := s.Forget(ctx, first); err != nil {
		t.Fatal(err)
	}
	begin(third, idempotency.Running)

	if err := s.Finish(ctx, second, "hash", 201, "application/json", []byte(`{"second": true}`)); err != nil {
		t.Fatal(err)
	}
	if st := begin(third, idempotency.Done); string(st.Body) != `{"second": true}` || st.Role != "admin" {
		t.Errorf("kept %s (role %q), want the second request's answer", st.Body, st.Role)
	}
}

// TestKeyLifetime: a key is kept 24 hours per company; within them a
// repeat finds the first request's answer and its body's hash (so a
// repeat with another body can be told apart), another company's same
// key is its own; after them the key starts afresh, and Purge deletes
// exactly the expired keys.
func TestKeyLifetime(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	company, other := fixtures.Company(t, db), fixtures.Company(t, db)
	s := idempotency.NewStore(db, time.Minute)
	// Request hashes are SHA-256 in hex.
	firstHash, otherHash := strings.Repeat("a", 64), strings.Repeat("b", 64)
	r := idempotency.Request{CompanyID: company, UserID: uuid.New(), Role: "hr_manager", Key: "order-1", Method: "POST",
		Path: "/api/v0/drivers", Claim: uuid.New()}
	if state, _, err := s.Begin(ctx, r); err != nil || state != idempotency.Started {
		t.Fatalf("first Begin: %d %v", state, err)
	}
	if err := s.Finish(ctx, r, firstHash, 201, "application/json", []byte(`{"id": 1}`)); err != nil {
		t.Fatal(err)
	}
	var lifetime time.Duration
	if err := db.QueryRow(ctx, `SELECT extract(epoch FROM expires_at - created_at)::bigint * 1000000000
		FROM idempotency_keys WHERE company_id = $1 AND key = $2`, company, r.Key).Scan(&lifetime); err != nil || lifetime != 24*time.Hour {
		t.Fatalf("key kept %s (%v), want 24h", lifetime, err)
	}

	repeat := r
	repeat.Claim = uuid.New()
	state, st, err := s.Begin(ctx, repeat)
	if err != nil || state != idempotency.Done || st.Status != 201 || string(st.Body) != `{"id": 1}` ||
		st.RequestHash != firstHash || st.Method != "POST" || st.Path != "/api/v0/drivers" {
		t.Fatalf("repeat: state %d %+v %v", state, st, err)
	}
	// A repeat with another body does not overwrite the stored answer.
	if err := s.Finish(ctx, repeat, otherHash, 200, "application/json", []byte(`{"id": 2}`)); err != nil {
		t.Fatal(err)
	}
	if _, st, _ := s.Begin(ctx, repeat); st.RequestHash != firstHash || string(st.Body) != `{"id": 1}` {
		t.Fatalf("the stored answer changed: %+v", st)
	}

	elsewhere := r
	elsewhere.CompanyID, elsewhere.Claim = other, uuid.New()
	if state, _, err := s.Begin(ctx, elsewhere); err != nil || state != idempotency.Started {
		t.Fatalf("the same key in another company: %d %v", state, err)
	}

	// 24 hours later: purge removes the expired key only, and the key
	// starts afresh.
	if _, err := db.Exec(ctx, `UPDATE idempotency_keys SET created_at = created_at - interval '24 hours',
		expires_at = expires_at - interval '24 hours' WHERE company_id = $1`, company); err != nil {
		t.Fatal(err)
	}
	if n, err := idempotency.Purge(ctx, db); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	var left int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM idempotency_keys WHERE company_id = $1`, other).Scan(&left); err != nil || left != 1 {
		t.Fatalf("purge removed a live key (%d left, %v)", left, err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO idempotency_keys (company_id, key, method, path, expires_at, claim, status, request_hash)
		VALUES ($1, 'stale', 'POST', '/x', now() - interval '1 second', $2, 201, 'h')`, company, uuid.New()); err != nil {
		t.Fatal(err)
	}
	stale := r
	stale.Key, stale.Claim = "stale", uuid.New()
	if state, _, err := s.Begin(ctx, stale); err != nil || state != idempotency.Started {
		t.Fatalf("an expired key not yet purged: %d %v, want it started afresh", state, err)
	}
}
