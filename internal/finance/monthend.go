package finance

import (
	"context"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/paging"
)

// Month-end for the whole company (docs/finance.md, "Month-end"): every
// driver's pay periods of a month listed with their pending transactions,
// closed or paid at once, each through the one per-period close or pay.

// MonthFilter narrows the company's pay periods of a month.
type MonthFilter struct {
	// PeriodStart is the month as its first day, "YYYY-MM-01" (required):
	// the periods starting in that month are listed.
	PeriodStart string
	Types       []string
	Statuses    []string
	// OfficeIDs keeps the periods of drivers of these offices (OR); an id
	// that is not one of the company's offices matches nobody.
	OfficeIDs []uuid.UUID
	Page      paging.Request
}

// MonthDriver names the driver of a period of the company-wide list.
type MonthDriver struct {
	ID             uuid.UUID `json:"id"`
	InternalNumber string    `json:"internal_number"`
	Name           string    `json:"name"`
}

// MonthPeriod is a period as a driver's period list answers it, with its
// driver and its pending transactions (disputed penalty records count as
// pending).
type MonthPeriod struct {
	Period
	Driver       MonthDriver `json:"driver"`
	PendingCount int         `json:"pending_count"`
}

// MonthCount is how many periods of a status a set holds, how many of them
// hold pending transactions, and how many pending transactions those are.
type MonthCount struct {
	Periods, WithPending, Pending int
}

// MonthTotal is the money of a set's periods in one currency (the period
// totals summed).
type MonthTotal struct {
	Currency                  string
	Periods                   int
	Earnings, Deductions, Net money.Amount
}

// MonthSummary describes a whole set of periods of a month (the filtered
// list, or a bulk action's selection): its periods by status and its money
// by currency.
type MonthSummary struct {
	Open, Closed, Paid MonthCount
	Totals             []MonthTotal
}

// Periods is how many periods the set holds.
func (m MonthSummary) Periods() int { return m.Open.Periods + m.Closed.Periods + m.Paid.Periods }

// MonthList is a page of the company's periods of a month, with the
// summary of the whole filtered set.
type MonthList struct {
	paging.Page[MonthPeriod]
	Month   civil.Date
	Summary MonthSummary
}

// ListMonthPeriods lists every existing pay period of the company's live
// drivers that starts in the filter's month, by driver (internal number),
// then start, type and currency.
// A month that is not a first-of-month date, an unknown type or status is
// 422. read fills the filter once the caller is checked (a query that does
// not parse is its error).
func (s *Service) ListMonthPeriods(ctx context.Context, p auth.Principal, read func(*MonthFilter) error) (MonthList, error) {
	company, err := collectionScope(p, auth.PayrollRead)
	if err != nil {
		return MonthList{}, err
	}
	f, err := readOnce(read)()
	if err != nil {
		return MonthList{}, err
	}
	var v apperr.Validation
	month := monthStart(f.PeriodStart, &v)
	checkValues(&v, "period_type", f.Types, PeriodTypes)
	checkValues(&v, "status", f.Statuses, PeriodStatuses)
	if err := v.Err(); err != nil {
		return MonthList{}, err
	}
	f.Page = f.Page.Or(1)
	sel := monthSelection{month: month, types: f.Types, statuses: f.Statuses, offices: f.OfficeIDs}
	out := MonthList{Page: paging.New[MonthPeriod](nil, 0, f.Page), Month: month}
	if out.Summary, err = monthSummary(ctx, s.db, company.CompanyID(), sel); err != nil {
		return MonthList{}, err
	}
	out.Total = out.Summary.Periods()
	if out.Total == 0 || f.Page.Offset() >= out.Total {
		return out, nil
	}
	if out.Items, err = monthPeriodRows(ctx, s.db, company.CompanyID(), sel, f.Page.Size, f.Page.Offset()); err != nil {
		return MonthList{}, err
	}
	return out, nil
}

// monthStart reads a month given as its first day (YYYY-MM-01): the
// period_start of the month-end list, the bulk moves and the payroll.
func monthStart(raw string, v *apperr.Validation) civil.Date {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		v.Add("period_start", "msg.finance.month_required")
		return civil.Date{}
	}
	d, err := civil.Parse(raw)
	if err != nil || d.Day() != 1 || d.Year() < 1900 || d.Year() > 2200 {
		v.Add("period_start", "msg.finance.month_start", "value", raw)
		return civil.Date{}
	}
	return d
}

// Results of a bulk move, per period.
const (
	BulkClosed  = "closed"
	BulkPaid    = "paid"
	BulkSkipped = "skipped"
)

// BulkPeriodsInput is the body of a bulk close or pay: the periods of a
// type starting in a month, of every driver or of the drivers named.
type BulkPeriodsInput struct {
	// PeriodStart is the month as its first day, "YYYY-MM-01".
	PeriodStart string `json:"period_start"`
	// PeriodType is the periods' type; "" is monthly.
	PeriodType string `json:"period_type"`
	// DriverIDs names the drivers; absent (nil) is every driver. Strings,
	// so that a bad id is a field message (422), not a malformed body.
	DriverIDs *[]string `json:"driver_ids"`
	// Force closes periods that still hold pending transactions (close
	// only).
	Force bool `json:"force"`
	// PaymentDate is the payment date of the paid transactions (pay only;
	// default today).
	PaymentDate *string `json:"payment_date"`

	// The web page's selection, not read from the API: periods by id, or
	// the month's periods of these offices and statuses.
	PeriodIDs []uuid.UUID `json:"-"`
	OfficeIDs []uuid.UUID `json:"-"`
	Statuses  []string    `json:"-"`
}

// BulkResult is the outcome of one period of a bulk move (or of a named
// driver without a period that month: PeriodID nil).
type BulkResult struct {
	DriverID     uuid.UUID
	DriverNumber string
	DriverName   string
	PeriodID     *uuid.UUID
	Currency     string
	// Result is BulkClosed or BulkPaid, or BulkSkipped with Err the
	// refusal.
	Result string
	Err    error
}

// MayMovePeriods checks that the caller may close and pay the company's
// periods in bulk (the month-end form's check, before its form is read).
func (s *Service) MayMovePeriods(p auth.Principal) error {
	_, err := collection(p, auth.PeriodsManage)
	return err
}

// ClosePeriods closes the selected periods of a month one by one, each
// through the per-period close in its own database transaction, so the
// same rules apply and a refusal (already closed, ...) leaves the others
// done: it becomes the period's skipped result. Bad input is 422 and changes
// nothing; an unexpected failure fails the request.
func (s *Service) ClosePeriods(ctx context.Context, p auth.Principal, read func(*BulkPeriodsInput) error) ([]BulkResult, error) {
	return s.bulkPeriods(ctx, p, read, BulkClosed)
}

// PayPeriods marks the selected periods of a month paid, as ClosePeriods
// closes them, each through PayPeriod.
func (s *Service) PayPeriods(ctx context.Context, p auth.Principal, read func(*BulkPeriodsInput) error) ([]BulkResult, error) {
	return s.bulkPeriods(ctx, p, read, BulkPaid)
}

// PreviewPeriods describes what a bulk move would act on (the page's
// confirmation): the selected periods by status, with their pending
// transactions. It changes nothing.
func (s *Service) PreviewPeriods(ctx context.Context, p auth.Principal, read func(*BulkPeriodsInput) error) (MonthSummary, error) {
	company, err := collectionScope(p, auth.PeriodsManage)
	if err != nil {
		return MonthSummary{}, err
	}
	in, err := readOnce(read)()
	if err != nil {
		return MonthSummary{}, err
	}
	sel, err := in.selection()
	if err != nil {
		return MonthSummary{}, err
	}
	return monthSummary(ctx, s.db, company.CompanyID(), sel)
}

func (s *Service) bulkPeriods(ctx context.Context, p auth.Principal, read func(*BulkPeriodsInput) error, move string) ([]BulkResult, error) {
	company, err := collectionScope(p, auth.PeriodsManage)
	if err != nil {
		return nil, err
	}
	in, err := readOnce(read)()
	if err != nil {
		return nil, err
	}
	sel, err := in.selection()
	if err != nil {
		return nil, err
	}
	targets, err := bulkTargets(ctx, s.db, company.CompanyID(), sel)
	if err != nil {
		return nil, err
	}
	out := make([]BulkResult, 0, len(targets))
	found := map[uuid.UUID]bool{}
	for _, r := range targets {
		found[r.DriverID] = true
		var err error
		if move == BulkClosed {
			_, err = s.ClosePeriod(ctx, p, r.DriverID, *r.PeriodID, Given(ClosePeriodInput{Force: in.Force}))
		} else {
			_, err = s.PayPeriod(ctx, p, r.DriverID, *r.PeriodID, Given(PayPeriodInput{PaymentDate: in.PaymentDate}))
		}
		switch {
		case err == nil:
			r.Result = move
		case apperr.KindOf(err) == apperr.KindInternal:
			return nil, err
		default:
			r.Result, r.Err = BulkSkipped, err
		}
		out = append(out, r)
	}
	for _, id := range sel.drivers {
		if !found[id] {
			found[id] = true
			out = append(out, BulkResult{DriverID: id, Result: BulkSkipped,
				Err: apperr.NotFound("msg.finance.month_no_period", "month", i18n.M("rating.month."+strconv.Itoa(int(sel.month.Month())), "year", strconv.Itoa(sel.month.Year())))})
		}
	}
	return out, nil
}

// selection validates a bulk move's body (422) and returns the periods it
// selects.
func (in BulkPeriodsInput) selection() (monthSelection, error) {
	var v apperr.Validation
	sel := monthSelection{month: monthStart(in.PeriodStart, &v), statuses: in.Statuses, offices: in.OfficeIDs, periods: in.PeriodIDs}
	typ := strings.TrimSpace(in.PeriodType)
	if typ == "" {
		typ = PeriodMonthly
	}
	checkValues(&v, "period_type", []string{typ}, PeriodTypes)
	sel.types = []string{typ}
	checkValues(&v, "status", in.Statuses, PeriodStatuses)
	if in.DriverIDs != nil {
		if len(*in.DriverIDs) == 0 {
			v.Add("driver_ids", "msg.finance.driver_ids_empty")
		}
		seen := map[uuid.UUID]bool{}
		for _, raw := range *in.DriverIDs {
			id, err := uuid.Parse(strings.TrimSpace(raw))
			if err != nil {
				v.Add("driver_ids", "msg.finance.driver_id", "value", raw)
				continue
			}
			if !seen[id] {
				seen[id] = true
				sel.drivers = append(sel.drivers, id)
			}
		}
	}
	if in.PaymentDate != nil && *in.PaymentDate != "" {
		if _, err := civil.Parse(*in.PaymentDate); err != nil {
			v.Add("payment_date", "msg.common.date_iso", "field", fieldName("payment_date"))
		}
	}
	return sel, v.Err()
}
