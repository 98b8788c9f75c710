package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/payslips"
	"github.com/konvoj/konvoj/internal/postgres"
)

// payslipQuery selects a period with its driver and company, as
// scanPayslipPeriod reads them.
const payslipQuery = `
	SELECT fp.id, fp.company_id, fp.driver_id, fp.period_type, fp.period_start, fp.period_end, fp.status,
		fp.total_earnings, fp.total_deductions, fp.net_amount, fp.currency, fp.transactions_count,
		d.internal_number, d.internal_seq, concat_ws(' ', d.first_name, d.middle_name, d.last_name),
		COALESCE(d.language, c.default_language), c.name, c.currency
	FROM finance_periods fp
	JOIN drivers d ON d.company_id = fp.company_id AND d.id = fp.driver_id
	JOIN companies c ON c.id = fp.company_id`

func scanPayslipPeriod(row pgx.Row, h *payslipPeriod) error {
	var lang string
	err := row.Scan(&h.ID, &h.CompanyID, &h.DriverID, &h.PeriodType, &h.PeriodStart, &h.PeriodEnd, &h.Status,
		&h.TotalEarnings, &h.TotalDeductions, &h.NetAmount, &h.Currency, &h.TransactionsCount,
		&h.DriverNumber, &h.driverSeq, &h.DriverName, &lang, &h.CompanyName, &h.CompanyCurrency)
	if err != nil {
		return err
	}
	h.Lang = i18n.Default
	if l, ok := i18n.Parse(lang); ok {
		h.Lang = l
	}
	return nil
}

// payslipHead reads one period of the driver for its payslip.
func payslipHead(ctx context.Context, db postgres.DBTX, companyID, driverID, periodID uuid.UUID) (payslipPeriod, error) {
	var h payslipPeriod
	err := scanPayslipPeriod(db.QueryRow(ctx, payslipQuery+`
		WHERE fp.company_id = $1 AND fp.driver_id = $2 AND fp.id = $3`, companyID, driverID, periodID), &h)
	if err != nil {
		return payslipPeriod{}, fmt.Errorf("read period %s for its payslip: %w", periodID, err)
	}
	return h, nil
}

// payslipHeads reads up to limit monthly periods of the company starting
// on month, of drivers not deleted, in the order of the drivers' numbers
// and then currencies, after the given one (nil: from the first).
func payslipHeads(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, month civil.Date, after *payslipPeriod, limit int) ([]payslipPeriod, error) {
	var seq *int64
	var currency *string
	if after != nil {
		seq, currency = &after.driverSeq, &after.Currency
	}
	rows, err := db.Query(ctx, payslipQuery+`
		WHERE fp.company_id = $1 AND fp.period_type = 'monthly' AND fp.period_start = $2 AND d.deleted_at IS NULL
			AND ($3::bigint IS NULL OR (d.internal_seq, fp.currency) > ($3, $4::text))
		ORDER BY d.internal_seq, fp.currency
		LIMIT $5`, companyID, month, seq, currency, limit)
	if err != nil {
		return nil, fmt.Errorf("read payslip periods of %s: %w", month, err)
	}
	out, err := postgres.AppendRows(nil, rows, scanPayslipPeriod)
	if err != nil {
		return nil, fmt.Errorf("read payslip periods of %s: %w", month, err)
	}
	return out, nil
}

// payslipLines reads the transactions of the periods that count in their
// totals (cancelled and deleted ones left out), oldest first, by period.
func payslipLines(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, periods []payslipPeriod) (map[uuid.UUID][]payslips.Line, error) {
	out := make(map[uuid.UUID][]payslips.Line, len(periods))
	if len(periods) == 0 {
		return out, nil
	}
	ids := make([]uuid.UUID, len(periods))
	for i, h := range periods {
		ids[i] = h.ID
	}
	rows, err := db.Query(ctx, `
		SELECT p.id, t.transaction_date, t.transaction_type, COALESCE(t.category, ''), COALESCE(t.description, ''), t.amount
		FROM finance_periods p
		JOIN finance_transactions t ON t.company_id = p.company_id AND t.driver_id = p.driver_id
			AND t.currency = p.currency AND t.transaction_date BETWEEN p.period_start AND p.period_end
			AND t.deleted_at IS NULL AND t.status <> 'cancelled'
		WHERE p.company_id = $1 AND p.id = ANY($2)
		ORDER BY p.id, t.transaction_date, t.created_at, t.id`, companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("read payslip lines: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var l payslips.Line
		if err := rows.Scan(&id, &l.Date, &l.Type, &l.Category, &l.Description, &l.Amount); err != nil {
			return nil, fmt.Errorf("read payslip lines: %w", err)
		}
		out[id] = append(out[id], l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read payslip lines: %w", err)
	}
	return out, nil
}
