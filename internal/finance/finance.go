// Package finance holds a driver's money: transactions with their approval
// workflow, pay periods with totals kept exact on every change, MTD/YTD/
// lifetime aggregates, and penalties, whose finance record moves with them in
// one database transaction (docs/finance.md).
//
// Lock order, to keep concurrent changes free of deadlocks: a penalty row,
// then the finance periods (in id order), then the transaction rows.
package finance

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
)

// Transaction statuses.
const (
	StatusPending   = "pending"
	StatusApproved  = "approved"
	StatusPaid      = "paid"
	StatusCancelled = "cancelled"
	// StatusDisputed is set only by a penalty dispute.
	StatusDisputed = "disputed"
)

// Statuses lists every transaction status.
var Statuses = []string{StatusPending, StatusApproved, StatusPaid, StatusCancelled, StatusDisputed}

// TransactionTypes are the types a transaction is created with; penalty
// and deduction take amounts below zero, the others (earnings) amounts
// above zero.
var TransactionTypes = []string{
	"base_salary", "overtime", "bonus", "penalty", "deduction",
	"business_trip", "allowance", "reimbursement",
}

// StoredTypes are every type a transaction may have: TransactionTypes and
// adjustment, which Konvoj posts itself (the list filters take them all).
var StoredTypes = append(append([]string{}, TransactionTypes...), TypeAdjustment)

// TypePenalty is the type of a penalty's finance record.
const TypePenalty = "penalty"

// TypeAdjustment and CategoryPenaltyCorrection are the type and category
// of a penalty's correction: the transaction a money-changing resolution
// posts when the penalty's record is inside a closed or paid period
// (docs/finance.md, "Penalties inside a closed period"). It counts by its
// sign, like every other transaction.
const (
	TypeAdjustment            = "adjustment"
	CategoryPenaltyCorrection = "penalty_correction"
)

// isDeduction reports whether a type takes negative amounts.
func isDeduction(t string) bool { return t == TypePenalty || t == "deduction" }

// Period types and statuses.
const (
	PeriodWeekly    = "weekly"
	PeriodMonthly   = "monthly"
	PeriodQuarterly = "quarterly"

	PeriodOpen   = "open"
	PeriodClosed = "closed"
	PeriodPaid   = "paid"
)

// PeriodTypes and PeriodStatuses list the allowed values.
var (
	PeriodTypes    = []string{PeriodWeekly, PeriodMonthly, PeriodQuarterly}
	PeriodStatuses = []string{PeriodOpen, PeriodClosed, PeriodPaid}
)

// DeleteWindowDays is how old (by transaction_date) a transaction may be and
// still be deleted.
const DeleteWindowDays = 90

// Service is the finance area: transactions, periods, aggregates, penalties.
type Service struct {
	db       *pgxpool.Pool
	files    storage.Store
	maxBytes int64
	// feedCodec signs the change feed's cursors.
	feedCodec feed.Codec
	// notifyDispute tells people of filed and resolved disputes (nil:
	// nobody).
	notifyDispute DisputeNotifier
}

// NewService returns the finance service; penalty evidence files are kept
// in files, at most maxBytes each (UPLOAD_MAX_BYTES, as document files).
// cursorKey signs the change feed's cursors; it must be secret and the
// same on every instance. notify (may be nil: nobody) tells people of filed and resolved disputes.
func NewService(db *pgxpool.Pool, files storage.Store, maxBytes int64, cursorKey []byte, notify DisputeNotifier) *Service {
	return &Service{db: db, files: files, maxBytes: maxBytes, feedCodec: feed.NewCodec(cursorKey), notifyDispute: notify}
}

// errMoved says a row changed between reading it and locking it, and
// errRelock that a change found it must lock more periods than it did;
// either way the transaction is retried, locking in the package's order.
var (
	errMoved  = errors.New("row changed while locking")
	errRelock = errors.New("more periods to lock")
)

// inTx runs fn in one database transaction, retrying a few times when
// PostgreSQL resolves a deadlock or a serialization failure by aborting us,
// or when a row moved while we were locking it. Every attempt starts over,
// so a retry never sees half a change.
func (s *Service) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := postgres.InTx(ctx, s.db, fn)
		if err == nil || attempt == 5 || !retryable(err) {
			return err
		}
	}
}

func retryable(err error) bool {
	if errors.Is(err, errMoved) || errors.Is(err, errRelock) {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// userName is the SQL display name of the users row aliased a: first and
// last name, else the e-mail.
func userName(a string) string {
	return "COALESCE(NULLIF(btrim(concat_ws(' ', " + a + ".first_name, " + a + ".last_name)), ''), " + a + ".email)"
}

// userID is the caller's id for created_by/approved_by columns (nil for a
// system caller without a user).
func userID(p auth.Principal) *uuid.UUID {
	if p.UserID == uuid.Nil {
		return nil
	}
	id := p.UserID
	return &id
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkValues adds a message for each value not in allowed (list filters).
func checkValues(v *apperr.Validation, field string, values, allowed []string) {
	for _, x := range values {
		if !contains(allowed, x) {
			v.Add(field, "msg.finance_read.value_invalid", "field", field, "value", x, "allowed", allowed)
		}
	}
}

// fieldName is a finance field's name as messages show it: the catalogue's
// "field.finance.<name>" ("transaction_date" → "transaction date").
func fieldName(name string) i18n.Message { return i18n.M("field.finance." + name) }

// penaltyState is a penalty status as messages show it ("state.penalty.<status>").
func penaltyState(status string) i18n.Message { return i18n.M("state.penalty." + status) }

// periodState is a pay period status as messages show it
// ("state.period.<status>").
func periodState(status string) i18n.Message { return i18n.M("state.period." + status) }

// periodType is a pay period type as messages show it
// ("state.period_type.<type>").
func periodType(typ string) i18n.Message { return i18n.M("state.period_type." + typ) }
