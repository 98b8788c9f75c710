package finance

import (
	"context"
	"fmt"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
)

// payrollColumns are the columns of the payroll export, by catalogue key
// of their header ("payroll.col.<name>").
var payrollColumns = []string{"internal_number", "name", "bank_account", "iban", "earnings", "deductions",
	"penalties", "net", "transactions_count", "status", "currency"}

// PayrollMonth checks a payroll's month (a first-of-month date, else 422)
// and returns it, so a download can be named before it starts.
func PayrollMonth(periodStart string) (civil.Date, error) {
	var v apperr.Validation
	m := monthStart(periodStart, &v)
	return m, v.Err()
}

// ExportPayroll writes the payroll of a month: one row per driver and
// currency, for every live driver with a monthly period of that month (by
// internal number), with the money of the driver's transactions in that
// month and currency summed as the list summary sums them (cancelled and
// deleted ones left out: earnings, deductions that are not penalties,
// penalties, net = earnings − deductions − penalties), the count of those
// transactions and the period's status; no total rows. Headers and words
// are in lang. The bank fields are filled for roles that read drivers'
// personal fields. read gives the month's first day (YYYY-MM-01) once the
// caller is checked (a query that does not parse is its error). The checks
// (403, 400, 422) come before start is called with the month; the rows are
// read from the database and written one at a time.
func (s *Service) ExportPayroll(ctx context.Context, p auth.Principal, read func(periodStart *string) error, lang i18n.Lang,
	start func(month civil.Date) (export.Writer, error)) error {
	company, err := collectionScope(p, auth.PayrollRead)
	if err != nil {
		return err
	}
	periodStart, err := readOnce(read)()
	if err != nil {
		return err
	}
	month, err := PayrollMonth(periodStart)
	if err != nil {
		return err
	}
	personal := seesPersonal(p)
	rows, err := s.db.Query(ctx, `
		SELECT d.internal_number, concat_ws(' ', d.first_name, d.last_name), d.bank_account, d.iban, fp.currency, fp.status,
			count(t.id) FILTER (WHERE t.status <> 'cancelled'), `+summarySQL+`
		FROM finance_periods fp
		JOIN drivers d ON d.company_id = fp.company_id AND d.id = fp.driver_id AND d.deleted_at IS NULL
		LEFT JOIN finance_transactions t ON t.company_id = fp.company_id AND t.driver_id = fp.driver_id
			AND t.currency = fp.currency AND t.transaction_date BETWEEN fp.period_start AND fp.period_end
			AND t.deleted_at IS NULL
		WHERE fp.company_id = $1 AND fp.period_type = 'monthly' AND fp.period_start = $2
		GROUP BY d.id, fp.id
		ORDER BY d.internal_seq, d.id, fp.currency`, company.CompanyID(), month)
	if err != nil {
		return fmt.Errorf("payroll of %s: %w", month, err)
	}
	defer rows.Close()
	w, err := start(month)
	if err != nil {
		return err
	}
	names := make([]string, len(payrollColumns))
	for i, c := range payrollColumns {
		names[i] = lang.T("payroll.col." + c)
	}
	if err := w.Header(names); err != nil {
		return err
	}
	for rows.Next() {
		var number, name, currency, status string
		var account, iban *string
		var n int64
		var earnings, deductions, penalties money.Amount
		if err := rows.Scan(&number, &name, &account, &iban, &currency, &status, &n, &earnings, &deductions, &penalties); err != nil {
			return fmt.Errorf("payroll of %s: %w", month, err)
		}
		if !personal {
			account, iban = nil, nil
		}
		net := earnings.Sub(deductions).Sub(penalties)
		if err := w.Row([]export.Cell{
			export.Text(number), export.Text(name), export.OptionalText(account), export.OptionalText(iban),
			export.Number(earnings.Decimal()), export.Number(deductions.Decimal()), export.Number(penalties.Decimal()),
			export.Number(net.Decimal()), export.Int(n),
			export.Text(lang.T("finance.period.status." + status)), export.Text(currency),
		}); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("payroll of %s: %w", month, err)
	}
	return w.Close()
}

// PayrollName is the payroll's file name without its extension:
// payroll-YYYY-MM.
func PayrollName(month civil.Date) string { return "payroll-" + month.String()[:7] }
