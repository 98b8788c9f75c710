package finance

import (
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/money"
)

// wantMessage fails unless err is an apperr.Error with the catalogue key.
func wantMessage(t *testing.T, what string, err error, key string) {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Text.Key != key {
		t.Fatalf("%s: got %v, want %s", what, err, key)
	}
}

// TestLoadersFallBackInTheCheckOrder: a loader's one-statement happy path
// misses for several reasons, and the fallback must give each its answer
// of docs/errors.md: the role first, then the driver (404, or 403 for
// another company's), then the record (404).
func TestLoadersFallBackInTheCheckOrder(t *testing.T) {
	w := newWorld(t)
	typ, desc, day := "speeding", "radar", w.acc.Today().String()
	pen, err := w.svc.CreatePenalty(w.ctx, w.hr, w.driver, Given(PenaltyInput{PenaltyType: &typ,
		Amount: money.TextInput("100"), IncidentDate: &day, Description: &desc}))
	if err != nil {
		t.Fatal(err)
	}
	gone := fixtures.Driver(t, w.db, w.company, fixtures.Deleted())
	other := fixtures.Company(t, w.db)
	stranger := w.principal(other, auth.RoleAdmin, "admin@other.example.test")
	dispatcher := w.principal(w.company, auth.RoleDispatcher, "disp@example.test")

	// The role before anything else, even for ids that name nothing.
	_, err = w.svc.AcceptPenalty(w.ctx, dispatcher, uuid.New(), uuid.New())
	wantKind(t, "a role that may not respond", err, apperr.KindForbidden)
	// A deleted driver: the driver's 404, not the penalty's.
	_, err = w.svc.GetPenalty(w.ctx, w.hr, gone, pen.ID)
	wantMessage(t, "a deleted driver", err, "msg.common.not_found.driver")
	// Another company's caller: 403 AccessDenied.
	_, err = w.svc.DisputePenalty(w.ctx, stranger, w.driver, pen.ID, nil)
	wantKind(t, "another company", err, apperr.KindAccessDenied)
	_, err = w.svc.ListEvidence(w.ctx, stranger, pen.ID)
	wantKind(t, "another company's penalty by id", err, apperr.KindAccessDenied)
	// The driver is there, the penalty is not: the penalty's 404, before
	// the input is read.
	read := func(*DisputeInput) error { t.Fatal("the input was read before the penalty was found"); return nil }
	_, err = w.svc.DisputePenalty(w.ctx, w.hr, w.driver, uuid.New(), read)
	wantMessage(t, "no such penalty", err, "msg.common.not_found.penalty")
	_, err = w.svc.GetTransaction(w.ctx, w.acc, w.driver, uuid.New())
	wantMessage(t, "no such transaction", err, "msg.common.not_found.transaction")
	_, err = w.svc.PayPeriod(w.ctx, w.acc, w.driver, uuid.New(), nil)
	wantMessage(t, "no such period", err, "msg.common.not_found.period")
	// The penalty's id with another driver's path: the penalty is not that
	// driver's (404).
	_, err = w.svc.GetPenalty(w.ctx, w.hr, fixtures.Driver(t, w.db, w.company), pen.ID)
	wantMessage(t, "another driver's path", err, "msg.common.not_found.penalty")
	// The input comes after the checks, once, and its error is the answer.
	bad := errors.New("unreadable body")
	calls := 0
	_, err = w.svc.DisputePenalty(w.ctx, w.hr, w.driver, pen.ID, func(*DisputeInput) error { calls++; return bad })
	if !errors.Is(err, bad) || calls != 1 {
		t.Fatalf("a body that does not read: %v after %d reads", err, calls)
	}
	if got, _ := w.svc.GetPenalty(w.ctx, w.hr, w.driver, pen.ID); got.Status != PenaltyPending {
		t.Fatalf("a refused dispute left the penalty %s", got.Status)
	}
}
