package api

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/web"
)

// mountMonthEnd registers month-end for the whole company (docs/finance.md,
// "Month-end"): every driver's periods of a month, the bulk close and pay,
// the payroll export.
func (h *Handlers) mountMonthEnd(g *web.Routes) {
	g.GET("/finance/periods", h.listMonthPeriods)
	g.POST("/finance/periods/close", h.closeMonthPeriods)
	g.POST("/finance/periods/pay", h.payMonthPeriods)
	g.GET("/finance/payroll", h.exportPayroll)
}

// monthSummary is finance.MonthSummary as the API writes it.
type monthSummary struct {
	Open    monthCount   `json:"open"`
	Closed  monthCount   `json:"closed"`
	Paid    monthCount   `json:"paid"`
	Totals  []monthTotal `json:"totals"`
	Periods int          `json:"periods"`
}

type monthCount struct {
	Periods      int `json:"periods"`
	WithPending  int `json:"with_pending"`
	PendingCount int `json:"pending_count"`
}

type monthTotal struct {
	Currency        string       `json:"currency"`
	Periods         int          `json:"periods"`
	TotalEarnings   money.Amount `json:"total_earnings"`
	TotalDeductions money.Amount `json:"total_deductions"`
	NetAmount       money.Amount `json:"net_amount"`
}

func newMonthSummary(s finance.MonthSummary) monthSummary {
	count := func(c finance.MonthCount) monthCount {
		return monthCount{Periods: c.Periods, WithPending: c.WithPending, PendingCount: c.Pending}
	}
	out := monthSummary{Open: count(s.Open), Closed: count(s.Closed), Paid: count(s.Paid), Periods: s.Periods(), Totals: []monthTotal{}}
	for _, t := range s.Totals {
		out.Totals = append(out.Totals, monthTotal{Currency: t.Currency, Periods: t.Periods,
			TotalEarnings: t.Earnings, TotalDeductions: t.Deductions, NetAmount: t.Net})
	}
	return out
}

func (h *Handlers) listMonthPeriods(c echo.Context) error {
	q := query{c: c}
	r := q.pageRequest(offsetSize)
	list, err := h.Finance.ListMonthPeriods(c.Request().Context(), web.Principal(c), func(f *finance.MonthFilter) error {
		*f = finance.MonthFilter{
			PeriodStart: q.str("period_start"), Types: q.list("period_type"), Statuses: q.list("status"),
			OfficeIDs: q.uuids("office_id"), Page: r,
		}
		return q.err()
	})
	if err != nil {
		return err
	}
	// The summary counts the whole filtered set.
	return writeList(c, list.Page, with("summary", newMonthSummary(list.Summary)))
}

// bulkResult is one period's outcome of a bulk close or pay.
type bulkResult struct {
	DriverID uuid.UUID  `json:"driver_id"`
	PeriodID *uuid.UUID `json:"period_id"`
	Currency *string    `json:"currency"`
	Result   string     `json:"result"`
	// Reason and Error are the refusal of a skipped period: its message
	// and its error name, as the per-period request would answer them.
	Reason *string `json:"reason,omitempty"`
	Error  *string `json:"error,omitempty"`
}

func (h *Handlers) closeMonthPeriods(c echo.Context) error {
	return h.bulkPeriods(c, h.Finance.ClosePeriods)
}

func (h *Handlers) payMonthPeriods(c echo.Context) error {
	return h.bulkPeriods(c, h.Finance.PayPeriods)
}

// bulkMove is finance.Service.ClosePeriods or PayPeriods.
type bulkMove func(ctx context.Context, p auth.Principal, read func(*finance.BulkPeriodsInput) error) ([]finance.BulkResult, error)

// bulkPeriods runs a bulk move and answers each period's result, in the
// month's order, then the named drivers without a period that month.
func (h *Handlers) bulkPeriods(c echo.Context, move bulkMove) error {
	results, err := move(c.Request().Context(), web.Principal(c), func(in *finance.BulkPeriodsInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	out := make([]bulkResult, 0, len(results))
	for _, r := range results {
		b := bulkResult{DriverID: r.DriverID, PeriodID: r.PeriodID, Result: r.Result}
		if r.Currency != "" {
			b.Currency = &r.Currency
		}
		if r.Err != nil {
			_, body, _ := web.ToBody(r.Err, "")
			b.Reason, b.Error = &body.Message, &body.Error
		}
		out = append(out, b)
	}
	return c.JSON(http.StatusOK, map[string]any{"data": out})
}

func (h *Handlers) exportPayroll(c echo.Context) error {
	pr := web.Principal(c)
	lang := callerLang(c, pr)
	var format export.Format
	read := func(periodStart *string) error {
		q := query{c: c}
		*periodStart = q.str("period_start")
		if err := q.err(); err != nil {
			return err
		}
		var err error
		format, err = export.FormatParam(q.str("format"))
		return err
	}
	return h.Finance.ExportPayroll(c.Request().Context(), pr, read, lang, func(month civil.Date) (export.Writer, error) {
		return startExport(c, format, finance.PayrollName(month), lang.T("payroll.sheet"))
	})
}
