package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// CompanyFilter narrows the company-wide transaction list (the approval
// queue): the filters of a driver's list, plus drivers and offices (OR
// within each), and a sort.
type CompanyFilter struct {
	TransactionFilter
	DriverIDs []uuid.UUID
	OfficeIDs []uuid.UUID
	// SortBy is one of CompanySorts ("" = transaction_date); SortOrder asc
	// or desc ("" = desc for dates and amounts, asc for the driver).
	SortBy, SortOrder string
}

// CompanySorts are the columns the company-wide list sorts by.
var CompanySorts = []string{"transaction_date", "amount", "driver", "created_at"}

// companyOrder is the ORDER BY of each sort, ascending; id is the final
// tie-break.
var companyOrder = map[string]string{
	"transaction_date": "t.transaction_date %[1]s, t.created_at %[1]s, t.id %[1]s",
	"amount":           "t.amount %[1]s, t.transaction_date DESC, t.id %[1]s",
	"driver":           "d.last_name %[1]s, d.first_name %[1]s, d.internal_number %[1]s, t.transaction_date DESC, t.id %[1]s",
	"created_at":       "t.created_at %[1]s, t.id %[1]s",
}

// CompanyRow is a transaction with its driver's name and number.
type CompanyRow struct {
	Transaction
	DriverName   string
	DriverNumber string
}

// CompanyList is a page of the company-wide list with the summaries of the
// whole filtered set (as a driver's list).
type CompanyList struct {
	paging.Page[CompanyRow]
	Summary   Summary
	Summaries []Summary
}

// ListCompanyTransactions is the company-wide transaction list: every
// driver's transactions (deleted drivers' left out), filtered and sorted,
// with the summary of the whole filtered set. A driver caller's list holds
// only its own transactions. The filters are validated as a driver's list's are
// (422), and a period filter is not one of them.
func (s *Service) ListCompanyTransactions(ctx context.Context, p auth.Principal, f CompanyFilter) (CompanyList, error) {
	company, err := collectionScope(p, auth.FinanceRead)
	if err != nil {
		return CompanyList{}, err
	}
	var v apperr.Validation
	f.TransactionFilter = f.TransactionFilter.check(&v)
	if f.PeriodID != nil {
		v.Add("period_id", "msg.finance_read.period_unknown")
	}
	if f.SortBy == "" {
		f.SortBy = "transaction_date"
	}
	if _, ok := companyOrder[f.SortBy]; !ok {
		v.Add("sort_by", "msg.list.sort_by", "allowed", CompanySorts)
	}
	switch f.SortOrder {
	case "":
		f.SortOrder = "desc"
		if f.SortBy == "driver" {
			f.SortOrder = "asc"
		}
	case "asc", "desc":
	default:
		v.Add("sort_order", "msg.list.sort_order")
	}
	if err := v.Err(); err != nil {
		return CompanyList{}, err
	}
	f.Page = f.Page.Or(1)
	out := CompanyList{Page: paging.New[CompanyRow](nil, 0, f.Page)}
	if out.Summaries, err = companyTxSums(ctx, s.db, company, f); err != nil {
		return CompanyList{}, err
	}
	for _, sm := range out.Summaries {
		out.Total += sm.rows
	}
	main := f.Currency
	if main == "" {
		main = mainCurrency(out.Summaries, companyCurrency(p))
	}
	out.Summary = Summary{Currency: main}
	for _, sm := range out.Summaries {
		if sm.Currency == main {
			out.Summary = sm
		}
	}
	if out.Total == 0 || f.Page.Offset() >= out.Total {
		return out, nil
	}
	if out.Items, err = companyTxRows(ctx, s.db, company, f); err != nil {
		return CompanyList{}, err
	}
	return out, nil
}

// companyTxWhere is the WHERE clause of the company-wide list over $1..$9,
// transactions t joined to their live driver d.
const companyTxWhere = `
	FROM finance_transactions t
	JOIN drivers d ON d.company_id = t.company_id AND d.id = t.driver_id AND d.deleted_at IS NULL
	WHERE t.company_id = $1 AND t.deleted_at IS NULL
		AND ($2::uuid IS NULL OR t.driver_id = $2)
		AND (COALESCE(cardinality($3::text[]), 0) = 0 OR t.transaction_type = ANY($3))
		AND (COALESCE(cardinality($4::text[]), 0) = 0 OR t.status = ANY($4))
		AND ($5::date IS NULL OR t.transaction_date >= $5)
		AND ($6::date IS NULL OR t.transaction_date <= $6)
		AND ($7 = '' OR t.currency = $7)
		AND (COALESCE(cardinality($8::uuid[]), 0) = 0 OR t.driver_id = ANY($8))
		AND (COALESCE(cardinality($9::uuid[]), 0) = 0 OR d.office_id = ANY($9))`

func companyTxArgs(company scope, f CompanyFilter) []any {
	return []any{company.CompanyID(), company.Only(), f.Types, f.Statuses, f.From, f.To, f.Currency, f.DriverIDs, f.OfficeIDs}
}

func companyTxSums(ctx context.Context, db postgres.DBTX, company scope, f CompanyFilter) ([]Summary, error) {
	rows, err := db.Query(ctx, `SELECT t.currency, count(*), `+summarySQL+companyTxWhere+
		` GROUP BY t.currency ORDER BY t.currency`, companyTxArgs(company, f)...)
	if err != nil {
		return nil, fmt.Errorf("summarise company transactions: %w", err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, sm *Summary) error {
		err := r.Scan(&sm.Currency, &sm.rows, &sm.TotalEarnings, &sm.TotalDeductions, &sm.TotalPenalties)
		sm.NetAmount = sm.TotalEarnings.Sub(sm.TotalDeductions).Sub(sm.TotalPenalties)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("summarise company transactions: %w", err)
	}
	return out, nil
}

// companyTxRows reads a page of the company-wide list. The page's ids are
// found first on the narrow join, then the rows are read with their
// people's names.
func companyTxRows(ctx context.Context, db postgres.DBTX, company scope, f CompanyFilter) ([]CompanyRow, error) {
	order := fmt.Sprintf(companyOrder[f.SortBy], f.SortOrder)
	q := `WITH page AS (SELECT t.id, row_number() OVER (ORDER BY ` + order + `) AS n ` + companyTxWhere + `
			ORDER BY ` + order + ` LIMIT $10 OFFSET $11)
		SELECT ` + txColumns + `, concat_ws(' ', d.first_name, d.last_name), d.internal_number
		FROM page
		JOIN finance_transactions t ON t.company_id = $1 AND t.id = page.id
		JOIN drivers d ON d.company_id = t.company_id AND d.id = t.driver_id
		` + txJoins + `
		ORDER BY page.n`
	rows, err := db.Query(ctx, q, append(companyTxArgs(company, f), f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return nil, fmt.Errorf("list company transactions: %w", err)
	}
	out, err := postgres.AppendRows(make([]CompanyRow, 0, f.Page.Size), rows, func(r pgx.Row, qr *CompanyRow) error {
		return scanTransaction(r, &qr.Transaction, &qr.DriverName, &qr.DriverNumber)
	})
	if err != nil {
		return nil, fmt.Errorf("list company transactions: %w", err)
	}
	return out, nil
}

// MoveResult is the outcome of one transaction of a bulk move: the
// transaction as it is now, or the refusal.
type MoveResult struct {
	ID          uuid.UUID
	DriverID    uuid.UUID
	Transaction Transaction
	Err         error
}

// MayMoveMany checks that the caller may move the company's transactions
// in bulk (the bulk form's check, before its form is read).
func (s *Service) MayMoveMany(p auth.Principal) error {
	_, err := collection(p, auth.FinanceWrite)
	return err
}

// MoveMany moves each named transaction to status to (approved or paid),
// one by one, each through UpdateTransaction (which checks it) in its
// own database transaction, so one refusal leaves the others done. ids
// name transactions of the caller's company; the driver of each is looked
// up, company-scoped (an unknown id is a 404 result).
func (s *Service) MoveMany(ctx context.Context, p auth.Principal, ids []uuid.UUID, to string) ([]MoveResult, error) {
	company, err := collectionScope(p, auth.FinanceWrite)
	if err != nil {
		return nil, err
	}
	if to != StatusApproved && to != StatusPaid {
		return nil, apperr.Invalid("status", "msg.finance.one_of", "field", fieldName("status"), "allowed", []string{StatusApproved, StatusPaid})
	}
	drivers, err := transactionDrivers(ctx, s.db, company, ids)
	if err != nil {
		return nil, err
	}
	out := make([]MoveResult, 0, len(ids))
	for _, id := range ids {
		r := MoveResult{ID: id, DriverID: drivers[id]}
		var err error
		if r.DriverID == uuid.Nil {
			err = apperr.NotFound("msg.common.not_found.transaction")
		}
		if err == nil {
			status := to
			r.Transaction, err = s.UpdateTransaction(ctx, p, r.DriverID, id, Given(TransactionInput{Status: &status}))
		}
		if err != nil && apperr.KindOf(err) == apperr.KindInternal {
			return nil, err
		}
		r.Err = err
		out = append(out, r)
	}
	return out, nil
}

// transactionDrivers maps live transactions of the company to their
// drivers (ids not found are left out).
func transactionDrivers(ctx context.Context, db postgres.DBTX, company scope, ids []uuid.UUID) (map[uuid.UUID]uuid.UUID, error) {
	rows, err := db.Query(ctx, `SELECT id, driver_id FROM finance_transactions
		WHERE company_id = $1 AND id = ANY($2) AND deleted_at IS NULL AND ($3::uuid IS NULL OR driver_id = $3)`,
		company.CompanyID(), ids, company.Only())
	if err != nil {
		return nil, fmt.Errorf("find drivers of transactions: %w", err)
	}
	defer rows.Close()
	out := map[uuid.UUID]uuid.UUID{}
	for rows.Next() {
		var id, driver uuid.UUID
		if err := rows.Scan(&id, &driver); err != nil {
			return nil, fmt.Errorf("find drivers of transactions: %w", err)
		}
		out[id] = driver
	}
	return out, rows.Err()
}
