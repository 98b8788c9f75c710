package idempotency_test

import (
	"context"
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
