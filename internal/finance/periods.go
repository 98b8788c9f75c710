package finance

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
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
func (s *Service) ListPeriods(ctx context.Context, p auth.Principal, ref Ref, f PeriodFilter) ([]Period, error) {
	d := ref.DriverRef
	_, err := ref.check(p, auth.FinanceRead, "")
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
	return listPeriodRows(ctx, s.db, d.CompanyID(), d.ID(), f)
}

// ClosePeriod moves an open period to closed: nothing dated inside it may
// change afterwards.
func (s *Service) ClosePeriod(ctx context.Context, p auth.Principal, ref Ref) (Period, error) {
	return s.movePeriod(ctx, p, ref, PeriodOpen, PeriodClosed, nil)
}

// PayPeriod moves a closed period to paid and marks its approved
// transactions paid (paid_by, paid_at, payment_date = paymentDate or today).
// Pending transactions stay pending.
func (s *Service) PayPeriod(ctx context.Context, p auth.Principal, ref Ref, paymentDate *string) (Period, error) {
	return s.movePeriod(ctx, p, ref, PeriodClosed, PeriodPaid, paymentDate)
}

// movePeriod moves a period of the driver from one status to the next;
// paying also pays its approved transactions.
func (s *Service) movePeriod(ctx context.Context, p auth.Principal, ref Ref, from, to string, paymentDateRaw *string) (Period, error) {
	d := ref.DriverRef
	periodID, err := ref.check(p, auth.PeriodsManage, PeriodRecord)
	if err != nil {
		return Period{}, err
	}
	payDate := p.Today()
	if paymentDateRaw != nil && *paymentDateRaw != "" {
		pd, err := civil.Parse(*paymentDateRaw)
		if err != nil {
			return Period{}, apperr.Invalid("payment_date", "msg.common.date_iso", "field", fieldName("payment_date"))
		}
		payDate = pd
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := getPeriod(ctx, tx, d.CompanyID(), d.ID(), periodID, true)
		if err != nil {
			return err
		}
		if cur.Status != from {
			return apperr.Conflict("msg.finance.period_move", "status", cur.Status, "from", from, "to", to)
		}
		if err := markPeriod(ctx, tx, d.CompanyID(), periodID, to, userID(p)); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_period", EntityID: periodID, Action: "period." + to,
			OldValues: map[string]any{"status": from}, NewValues: map[string]any{"status": to}}); err != nil {
			return err
		}
		if to == PeriodPaid {
			if err := payApproved(ctx, tx, p, cur, payDate); err != nil {
				return err
			}
		}
		event := webhooks.PeriodClosed
		if to == PeriodPaid {
			event = webhooks.PeriodPaid
		}
		return emitPeriod(ctx, tx, d.CompanyID(), d.ID(), periodID, event)
	})
	if err != nil {
		return Period{}, err
	}
	return getPeriod(ctx, s.db, d.CompanyID(), d.ID(), periodID, false)
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
	for _, p := range ps {
		if p.Status == PeriodOpen {
			continue
		}
		for _, sl := range slots {
			if sl.Currency == p.Currency && !sl.Date.Before(p.PeriodStart) && !sl.Date.After(p.PeriodEnd) {
				return apperr.Conflict("msg.finance.period_closed", "type", p.PeriodType, "start", p.PeriodStart,
					"end", p.PeriodEnd, "currency", p.Currency, "status", p.Status)
			}
		}
	}
	return nil
}
