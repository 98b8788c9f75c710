package finance

import (
	"context"
	"sort"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Summary is the money of a set of transactions in one currency, over every
// status but cancelled: total_earnings = sum of positive amounts,
// total_deductions = absolute sum of negative amounts that are not
// penalties, total_penalties = absolute sum of penalty amounts, net_amount =
// earnings − deductions − penalties.
type Summary struct {
	Currency        string       `json:"currency"`
	TotalEarnings   money.Amount `json:"total_earnings"`
	TotalDeductions money.Amount `json:"total_deductions"`
	TotalPenalties  money.Amount `json:"total_penalties"`
	NetAmount       money.Amount `json:"net_amount"`
	rows            int
}

// summarySQL are the summary columns over transactions aliased t; the
// aggregates use the same expressions, so the two always agree.
const summarySQL = `
	COALESCE(sum(t.amount) FILTER (WHERE t.status <> 'cancelled' AND t.amount > 0 AND t.transaction_type <> 'penalty'), 0),
	COALESCE(-sum(t.amount) FILTER (WHERE t.status <> 'cancelled' AND t.amount < 0 AND t.transaction_type <> 'penalty'), 0),
	COALESCE(-sum(t.amount) FILTER (WHERE t.status <> 'cancelled' AND t.transaction_type = 'penalty'), 0)`

// TransactionFilter narrows the transaction list.
type TransactionFilter struct {
	Types    []string
	Statuses []string
	From, To *civil.Date
	PeriodID *uuid.UUID
	Currency string
	Page     paging.Request
}

// TransactionList is a page of transactions with the summary of the whole
// filtered set.
type TransactionList struct {
	paging.Page[Transaction]
	// Summary is for the main currency: the currency filter when given, else
	// the company's currency when the set has rows in it, else the currency
	// with the most rows.
	Summary Summary
	// Summaries has one entry per currency present in the set.
	Summaries []Summary
}

// ListTransactions returns a page of the driver's transactions (newest
// transaction_date first) and the summary of the whole filtered set.
func (s *Service) ListTransactions(ctx context.Context, p auth.Principal, driverID uuid.UUID, f TransactionFilter) (TransactionList, error) {
	d, err := loadDriver(ctx, s.db, p, auth.FinanceRead, driverID)
	if err != nil {
		return TransactionList{}, err
	}
	var v apperr.Validation
	f = f.check(&v)
	main := f.Currency
	if f.PeriodID != nil {
		if f, main, err = s.withinPeriod(ctx, d, f, &v); err != nil {
			return TransactionList{}, err
		}
	}
	if err := v.Err(); err != nil {
		return TransactionList{}, err
	}
	sums, page, err := transactionList(ctx, s.db, d.CompanyID, d.ID, f)
	if err != nil {
		return TransactionList{}, err
	}
	return newTransactionList(p, sums, page, f.Page, main), nil
}

// Read is ListTransactions in one round trip: the driver's lookup, the
// summaries and the page go to PostgreSQL together
// (loadDriverWith in access.go; docs/performance.md, "One round trip for a
// guarded read"). A filter by period needs the period's dates first, and a
// filter that fails validation must answer after the driver's 403 and 404:
// both are ListTransactions.
func (s *Service) Read(ctx context.Context, p auth.Principal, driverID uuid.UUID, f TransactionFilter) (TransactionList, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	var v apperr.Validation
	checked := f.check(&v)
	if f.PeriodID != nil || v.Err() != nil {
		return s.ListTransactions(ctx, p, driverID, f)
	}
	var sums []Summary
	var page []Transaction
	_, err := loadDriverWith(ctx, s.db, p, auth.FinanceRead, driverID, func(b *pgx.Batch) {
		queueTransactionList(b, p.CompanyID, driverID, checked, &sums, &page)
	})
	if err != nil {
		return TransactionList{}, err
	}
	return newTransactionList(p, sums, page, checked.Page, checked.Currency), nil
}

// newTransactionList is the answer of a transaction list: the page, the
// summaries and the total of the filtered set, and the summary of the main
// currency (the one asked for, else mainCurrency's).
func newTransactionList(p auth.Principal, sums []Summary, page []Transaction, r paging.Request, main string) TransactionList {
	total := 0
	for _, sm := range sums {
		total += sm.rows
	}
	out := TransactionList{Page: paging.New(page, total, r), Summaries: sums}
	if main == "" {
		main = mainCurrency(sums, companyCurrency(p))
	}
	out.Summary = Summary{Currency: main}
	for _, sm := range sums {
		if sm.Currency == main {
			out.Summary = sm
		}
	}
	return out
}

// check validates the filter's values and normalises its currency.
func (f TransactionFilter) check(v *apperr.Validation) TransactionFilter {
	checkValues(v, "type", f.Types, StoredTypes)
	checkValues(v, "status", f.Statuses, Statuses)
	if f.Currency != "" {
		c, ok := money.NormalizeCurrency(f.Currency)
		if !ok {
			v.Add("currency", "msg.common.currency", "value", f.Currency)
		}
		f.Currency = c
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		v.Add("to_date", "msg.finance_read.to_before_from")
	}
	return f
}

// withinPeriod narrows the filter to the period's dates and currency: a
// period stands for them, so the filter works for weekly and quarterly
// periods as well as the monthly one a transaction is linked to. It
// returns the narrowed filter and the main currency of the summary.
func (s *Service) withinPeriod(ctx context.Context, d loadedDriver, f TransactionFilter, v *apperr.Validation) (TransactionFilter, string, error) {
	main := f.Currency
	per, err := periodSpan(ctx, s.db, d.CompanyID, d.ID, *f.PeriodID)
	switch {
	case postgres.IsNotFound(err):
		v.Add("period_id", "msg.finance_read.period_unknown")
		return f, main, nil
	case err != nil:
		return f, main, err
	}
	if f.From == nil || f.From.Before(per.PeriodStart) {
		f.From = &per.PeriodStart
	}
	if f.To == nil || f.To.After(per.PeriodEnd) {
		f.To = &per.PeriodEnd
	}
	if f.Currency == "" {
		main, f.Currency = per.Currency, per.Currency
	} else if f.Currency != per.Currency {
		f.Currency = "-" // no row has this currency: an empty result
	}
	return f, main, nil
}

// mainCurrency picks the currency a single summary is given in: the
// company's when the set has rows in it, else the one with the most rows
// (ties: alphabetical), else the company's.
func mainCurrency(sums []Summary, company string) string {
	best := ""
	bestRows := 0
	sorted := append([]Summary(nil), sums...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Currency < sorted[j].Currency })
	for _, sm := range sorted {
		if sm.Currency == company {
			return company
		}
		if sm.rows > bestRows {
			best, bestRows = sm.Currency, sm.rows
		}
	}
	if best == "" {
		return company
	}
	return best
}
