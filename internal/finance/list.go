package finance

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
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
	Page     int
	PerPage  int
}

// TransactionList is a page of transactions with the summary of the whole
// filtered set.
type TransactionList struct {
	Transactions []Transaction
	Total        int
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
	d, err := s.driverFor(ctx, p, auth.FinanceRead, driverID)
	if err != nil {
		return TransactionList{}, err
	}
	var v apperr.Validation
	checkValues(&v, "type", f.Types, TransactionTypes)
	checkValues(&v, "status", f.Statuses, Statuses)
	if f.Currency != "" {
		c, ok := money.NormalizeCurrency(f.Currency)
		if !ok {
			v.Add("currency", "The currency must be a 3-letter ISO 4217 code.")
		}
		f.Currency = c
	}
	main := f.Currency
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		v.Add("to_date", "The to_date must not be before from_date.")
	}
	if f.PeriodID != nil {
		// A period stands for its dates and currency, so the filter works for
		// weekly and quarterly periods as well as the monthly one a
		// transaction is linked to.
		var start, end civil.Date
		var currency string
		err := s.db.QueryRow(ctx, `SELECT period_start, period_end, currency FROM finance_periods WHERE company_id = $1 AND driver_id = $2 AND id = $3`,
			d.CompanyID, d.ID, *f.PeriodID).Scan(&start, &end, &currency)
		switch {
		case postgres.IsNotFound(err):
			v.Add("period_id", "The selected period_id is not a period of this driver.")
		case err != nil:
			return TransactionList{}, fmt.Errorf("read period %s: %w", *f.PeriodID, err)
		default:
			if f.From == nil || f.From.Before(start) {
				f.From = &start
			}
			if f.To == nil || f.To.After(end) {
				f.To = &end
			}
			if f.Currency == "" {
				main, f.Currency = currency, currency
			} else if f.Currency != currency {
				f.Currency = "-" // no row has this currency: an empty result
			}
		}
	}
	if err := v.Err(); err != nil {
		return TransactionList{}, err
	}

	where := `
		WHERE t.company_id = $1 AND t.driver_id = $2 AND t.deleted_at IS NULL
			AND (COALESCE(cardinality($3::text[]), 0) = 0 OR t.transaction_type = ANY($3))
			AND (COALESCE(cardinality($4::text[]), 0) = 0 OR t.status = ANY($4))
			AND ($5::date IS NULL OR t.transaction_date >= $5)
			AND ($6::date IS NULL OR t.transaction_date <= $6)
			AND ($7 = '' OR t.currency = $7)`
	args := []any{d.CompanyID, d.ID, f.Types, f.Statuses, f.From, f.To, f.Currency}

	rows, err := s.db.Query(ctx, `SELECT t.currency, count(*), `+summarySQL+` FROM finance_transactions t `+where+
		` GROUP BY t.currency ORDER BY t.currency`, args...)
	if err != nil {
		return TransactionList{}, fmt.Errorf("summarise transactions of driver %s: %w", driverID, err)
	}
	out := TransactionList{Summaries: []Summary{}}
	for rows.Next() {
		var sm Summary
		if err := rows.Scan(&sm.Currency, &sm.rows, &sm.TotalEarnings, &sm.TotalDeductions, &sm.TotalPenalties); err != nil {
			rows.Close()
			return TransactionList{}, fmt.Errorf("scan summary: %w", err)
		}
		sm.NetAmount = sm.TotalEarnings.Sub(sm.TotalDeductions).Sub(sm.TotalPenalties)
		out.Total += sm.rows
		out.Summaries = append(out.Summaries, sm)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return TransactionList{}, fmt.Errorf("summarise transactions of driver %s: %w", driverID, err)
	}
	if main == "" {
		main = mainCurrency(out.Summaries, companyCurrency(p))
	}
	out.Summary = Summary{Currency: main}
	for _, sm := range out.Summaries {
		if sm.Currency == main {
			out.Summary = sm
		}
	}

	out.Transactions = []Transaction{}
	if out.Total == 0 || (f.Page-1)*f.PerPage >= out.Total {
		return out, nil
	}
	rows, err = s.db.Query(ctx, txQuery+where+`
		ORDER BY t.transaction_date DESC, t.created_at DESC, t.id DESC
		LIMIT $8 OFFSET $9`, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	if err != nil {
		return TransactionList{}, fmt.Errorf("list transactions of driver %s: %w", driverID, err)
	}
	out.Transactions, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Transaction, error) { return scanTransaction(r) })
	if err != nil {
		return TransactionList{}, fmt.Errorf("list transactions of driver %s: %w", driverID, err)
	}
	return out, nil
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
