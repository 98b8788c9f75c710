package finance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// Period is a driver's pay period in one currency. Its totals cover the
// driver's transactions in that currency dated inside it, except cancelled
// and deleted ones: total_earnings = sum of positive amounts,
// total_deductions = absolute sum of negative amounts (deductions and
// penalties), net_amount = earnings − deductions.
type Period struct {
	ID                uuid.UUID    `json:"id"`
	CompanyID         uuid.UUID    `json:"company_id"`
	DriverID          uuid.UUID    `json:"driver_id"`
	PeriodType        string       `json:"period_type"`
	PeriodStart       civil.Date   `json:"period_start"`
	PeriodEnd         civil.Date   `json:"period_end"`
	Status            string       `json:"status"`
	TotalEarnings     money.Amount `json:"total_earnings"`
	TotalDeductions   money.Amount `json:"total_deductions"`
	NetAmount         money.Amount `json:"net_amount"`
	Currency          string       `json:"currency"`
	TransactionsCount int          `json:"transactions_count"`
	ClosedAt          *time.Time   `json:"closed_at"`
	ClosedBy          *string      `json:"closed_by"`
	PaidAt            *time.Time   `json:"paid_at"`
	PaidBy            *string      `json:"paid_by"`
	CreatedAt         time.Time    `json:"created_at"`
	UpdatedAt         time.Time    `json:"updated_at"`
}

// PeriodFilter narrows the period list.
type PeriodFilter struct {
	Types    []string
	Statuses []string
	Year     *int
}

// ListPeriods returns the driver's periods, newest first.
// read fills the filter once the driver is checked (a query that does not
// parse is its error).
func (s *Service) ListPeriods(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*PeriodFilter) error) ([]Period, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	d, err := loadDriver(ctx, s.db, p, auth.FinanceRead, driverID)
	if err != nil {
		return nil, err
	}
	f, err := readOnce(read)()
	if err != nil {
		return nil, err
	}
	var v apperr.Validation
	checkValues(&v, "period_type", f.Types, PeriodTypes)
	checkValues(&v, "status", f.Statuses, PeriodStatuses)
	if f.Year != nil && (*f.Year < 1900 || *f.Year > 2200) {
		v.Add("year", "msg.finance_read.year")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return listPeriodRows(ctx, s.db, d.CompanyID, d.ID, f)
}

// PeriodToClose loads period periodID of driver driverID for a close (the
// close confirmation's check: the role, the driver, the period).
func (s *Service) PeriodToClose(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID) (Period, error) {
	return loadPeriod(ctx, s.db, p, auth.PeriodsManage, driverID, periodID, false)
}

// ClosePeriodInput is the body of a close.
type ClosePeriodInput struct {
	// Force closes a period that still holds pending transactions
	// (pending, or disputed through their penalty): they stay as they are,
	// and the audit row of the close names them.
	Force bool `json:"force"`
}

// PendingError is the cause of a close refused because the period still
// holds pending transactions: their ids, oldest date first, so that a page
// can say how many and list them.
type PendingError struct {
	IDs []uuid.UUID
}

func (e *PendingError) Error() string { return fmt.Sprintf("%d pending transactions", len(e.IDs)) }

// PendingOf returns the pending transactions a close was refused for, or
// nil when err is not that refusal.
func PendingOf(err error) []uuid.UUID {
	var pe *PendingError
	if errors.As(err, &pe) {
		return pe.IDs
	}
	return nil
}

// Closable reports whether a period may be closed on day today (the
// company's today): once its last day has passed.
func Closable(per Period, today civil.Date) bool { return today.After(per.PeriodEnd) }

// ClosePeriod moves an open period to closed: nothing dated inside it may
// change afterwards, except a penalty's accept, dispute and resolution
// (docs/finance.md, "Closing and reopening a period"). It is refused (409)
// before the period's last day has passed in the company's time zone, and,
// unless in.Force, while the period holds pending or disputed transactions
// (the refusal's cause is a PendingError). The period row is locked first,
// so of two closes at once one closes and the other finds it closed (409);
// the audit row records force and the pending transactions closed over.
// Closing the periods of many drivers calls it once per period.
func (s *Service) ClosePeriod(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID, read func(*ClosePeriodInput) error) (Period, error) {
	today := p.Today()
	input := readOnce(read)
	var out Period
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := loadPeriod(ctx, tx, p, auth.PeriodsManage, driverID, periodID, true)
		if err != nil {
			return err
		}
		in, err := input()
		if err != nil {
			return err
		}
		if cur.Status != PeriodOpen {
			return apperr.Conflict("msg.finance.period_move", "status", periodState(cur.Status), "from", periodState(PeriodOpen), "to", periodState(PeriodClosed))
		}
		if !Closable(cur, today) {
			return apperr.Conflict("msg.finance.close_too_early", "end", cur.PeriodEnd, "from", cur.PeriodEnd.AddDays(1))
		}
		pending, err := pendingRows(ctx, tx, cur)
		if err != nil {
			return err
		}
		if len(pending) > 0 && !in.Force {
			return apperr.Wrap(&PendingError{IDs: pending}, apperr.KindConflict, "msg.finance.close_pending", "count", len(pending))
		}
		if out, err = markPeriod(ctx, tx, cur.CompanyID, periodID, PeriodClosed, userID(p)); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_period", EntityID: periodID, Action: "period.closed",
			OldValues: map[string]any{"status": PeriodOpen},
			NewValues: map[string]any{"status": PeriodClosed, "force": in.Force, "pending_transaction_ids": pending}}); err != nil {
			return err
		}
		return emitPeriod(ctx, tx, out, webhooks.PeriodClosed)
	})
	if err != nil {
		return Period{}, err
	}
	return out, nil
}

// ReopenInput is the body of a reopen.
type ReopenInput struct {
	Reason *string `json:"reason"`
}

// maxReopenReason is the longest reason a reopen may give.
const maxReopenReason = 1000

// ReopenPeriod moves a closed period back to open, with a reason (422
// without one), audited: its transactions can be changed again. A paid
// period never reopens and an open one cannot (409).
func (s *Service) ReopenPeriod(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID, read func(*ReopenInput) error) (Period, error) {
	input := readOnce(read)
	var out Period
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := loadPeriod(ctx, tx, p, auth.PeriodsReopen, driverID, periodID, true)
		if err != nil {
			return err
		}
		in, err := input()
		if err != nil {
			return err
		}
		var v apperr.Validation
		reason := requiredText(&v, "reason", in.Reason, maxReopenReason)
		if err := v.Err(); err != nil {
			return err
		}
		switch cur.Status {
		case PeriodPaid:
			return apperr.Conflict("msg.finance.reopen_paid")
		case PeriodOpen:
			return apperr.Conflict("msg.finance.reopen_open")
		}
		if out, err = markPeriod(ctx, tx, cur.CompanyID, periodID, PeriodOpen, userID(p)); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_period", EntityID: periodID, Action: "period.reopened",
			OldValues: map[string]any{"status": PeriodClosed, "closed_at": cur.ClosedAt, "closed_by": cur.ClosedBy},
			NewValues: map[string]any{"status": PeriodOpen, "reason": reason}}); err != nil {
			return err
		}
		if err := settlePenaltyRecords(ctx, tx, p, cur); err != nil {
			return err
		}
		return emitPeriod(ctx, tx, out, webhooks.PeriodReopened)
	})
	if err != nil {
		return Period{}, err
	}
	return out, nil
}

// settlePenaltyRecords brings the status of the penalty records in the
// reopened period per up to their penalties: a penalty disputed or resolved
// while the period was closed left its record as it was, so a record is
// disputed while its penalty is, and pending otherwise (a resolution's
// change of money stands as its correction). Each change is audited.
func settlePenaltyRecords(ctx context.Context, tx pgx.Tx, p auth.Principal, per Period) error {
	moved, err := settlePenaltyRecordRows(ctx, tx, per)
	if err != nil {
		return err
	}
	for id, to := range moved {
		from := map[string]string{StatusPending: StatusDisputed, StatusDisputed: StatusPending}[to]
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "updated",
			OldValues: map[string]any{"status": from}, NewValues: map[string]any{"status": to}}); err != nil {
			return err
		}
	}
	return nil
}

// PayPeriodInput is the body of a payment.
type PayPeriodInput struct {
	// PaymentDate is the payment date of the transactions paid (YYYY-MM-DD;
	// default: the company's today).
	PaymentDate *string `json:"payment_date"`
}

// PayPeriod moves a closed period to paid and marks its approved
// transactions paid (paid_by, paid_at, payment_date = the input's payment
// date or today). Pending transactions stay pending. read fills the input
// once the period is checked.
func (s *Service) PayPeriod(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID, read func(*PayPeriodInput) error) (Period, error) {
	input := readOnce(read)
	var out Period
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := loadPeriod(ctx, tx, p, auth.PeriodsManage, driverID, periodID, true)
		if err != nil {
			return err
		}
		in, err := input()
		if err != nil {
			return err
		}
		payDate := p.Today()
		if in.PaymentDate != nil && *in.PaymentDate != "" {
			pd, err := civil.Parse(*in.PaymentDate)
			if err != nil {
				return apperr.Invalid("payment_date", "msg.common.date_iso", "field", fieldName("payment_date"))
			}
			payDate = pd
		}
		if cur.Status != PeriodClosed {
			return apperr.Conflict("msg.finance.period_move", "status", periodState(cur.Status), "from", periodState(PeriodClosed), "to", periodState(PeriodPaid))
		}
		if out, err = markPeriod(ctx, tx, cur.CompanyID, periodID, PeriodPaid, userID(p)); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_period", EntityID: periodID, Action: "period.paid",
			OldValues: map[string]any{"status": PeriodClosed}, NewValues: map[string]any{"status": PeriodPaid}}); err != nil {
			return err
		}
		if err := payApproved(ctx, tx, p, cur, payDate); err != nil {
			return err
		}
		return emitPeriod(ctx, tx, out, webhooks.PeriodPaid)
	})
	if err != nil {
		return Period{}, err
	}
	return out, nil
}

// payApproved marks the period's approved transactions paid, with an audit
// row each. The period row is locked, so no transaction dated inside it can
// change meanwhile.
func payApproved(ctx context.Context, tx pgx.Tx, p auth.Principal, per Period, payDate civil.Date) error {
	ids, err := payApprovedRows(ctx, tx, per, userID(p), payDate)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "updated",
			OldValues: map[string]any{"status": StatusApproved},
			NewValues: map[string]any{"status": StatusPaid, "payment_date": payDate, "period_id": per.ID}}); err != nil {
			return err
		}
		if err := emitTransaction(ctx, tx, per.CompanyID, per.DriverID, id, webhooks.TransactionPaid); err != nil {
			return err
		}
	}
	return nil
}

// slot is where a transaction sits: its date and currency.
type slot struct {
	Date     civil.Date
	Currency string
}

func (sl slot) same(o slot) bool {
	return sl.Currency == o.Currency && sl.Date.String() == o.Date.String()
}

// lockedPeriods are the periods covering some slots, locked FOR UPDATE.
type lockedPeriods []Period

// monthly returns the id of the locked monthly period holding the slot.
func (ps lockedPeriods) monthly(sl slot) (uuid.UUID, error) {
	for _, p := range ps {
		if p.PeriodType == PeriodMonthly && p.Currency == sl.Currency && p.PeriodStart.String() == sl.Date.MonthStart().String() {
			return p.ID, nil
		}
	}
	return uuid.Nil, fmt.Errorf("monthly period of %s %s not locked", sl.Date, sl.Currency)
}

// checkOpen gives 409 when a period covering one of the slots is closed or
// paid.
func (ps lockedPeriods) checkOpen(slots ...slot) error {
	for _, sl := range slots {
		if p, ok := LockedBy(ps, sl.Date, sl.Currency); ok {
			return LockedError(p)
		}
	}
	return nil
}

// LockedError is the refusal (409) of a change to something dated inside
// the closed or paid period p.
func LockedError(p Period) error {
	return apperr.Conflict("msg.finance.period_closed", "type", periodType(p.PeriodType), "start", p.PeriodStart,
		"end", p.PeriodEnd, "currency", p.Currency, "status", periodState(p.Status))
}

// LockedBy returns the closed or paid period among periods (of any type)
// that covers the day in the currency: nothing dated there can be created,
// changed or deleted, but a penalty's accept, dispute and resolution. ok is
// false when every period covering it is open.
func LockedBy(periods []Period, day civil.Date, currency string) (Period, bool) {
	for _, p := range periods {
		if p.Status != PeriodOpen && p.Currency == currency && !day.Before(p.PeriodStart) && !day.After(p.PeriodEnd) {
			return p, true
		}
	}
	return Period{}, false
}
