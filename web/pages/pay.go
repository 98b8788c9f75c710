package pages

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// payMonthRows is how many of the month's transactions the pay page lists.
const payMonthRows = 100

func (p *Pages) mountPay(r *web.Routes) {
	// A driver's menu entry "My pay" is the finance entry's own form
	// (mountFinance).
	r.GET("/drivers/:id/pay", p.payPage)
}

// payPage is a driver's pay, phone first (docs/web-app.md, "Pay page"):
// this month's transactions and net so far, then the pay periods with
// their totals. A driver opens its own only; staff who read finance open
// any driver's of their company.
func (p *Pages) payPage(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	id := web.PathID(c, "id")
	today := pr.Today()
	month, err := p.svc.Finance.ListTransactions(ctx, pr, id, finance.TransactionFilter{
		From: ptr(today.MonthStart()), To: ptr(today.MonthEnd()), Page: paging.Request{Number: 1, Size: payMonthRows}})
	if err != nil {
		return err
	}
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, id, finance.Given(finance.PeriodFilter{}))
	if err != nil {
		return err
	}
	d := views.PayData{DriverURL: driverURL(id), Self: pr.DriverID != nil && *pr.DriverID == id,
		Month: spanText(lang, today.MonthStart(), today), More: max(0, month.Total-len(month.Items))}
	if !d.Self {
		drv, err := p.svc.Drivers.Read(ctx, pr, id)
		if err != nil {
			return err
		}
		d.DriverName, d.DriverNumber = fullName(drv), drv.InternalNumber
	}
	for _, sm := range orderSummaries(month.Summaries, pr.CompanyCurrency) {
		d.Totals = append(d.Totals, views.PayTotals{Currency: sm.Currency,
			Earnings:   amountView(lang, sm.TotalEarnings, sm.Currency),
			Deductions: amountView(lang, sm.TotalDeductions.Neg(), sm.Currency),
			Penalties:  amountView(lang, sm.TotalPenalties.Neg(), sm.Currency),
			Net:        amountView(lang, sm.NetAmount, sm.Currency)})
	}
	for _, t := range month.Items {
		row := views.PayRow{Date: lang.Date(t.TransactionDate), Type: t.TransactionType, Status: t.Status,
			Description: deref(t.Description), Amount: amountView(lang, t.Amount, t.Currency)}
		if t.PenaltyID != nil {
			row.PenaltyURL = penaltyURL(id, *t.PenaltyID)
		}
		if t.Correction() {
			row.Correction = correctionText(lang, t)
		}
		d.Rows = append(d.Rows, row)
	}
	for _, pe := range periods {
		d.Periods = append(d.Periods, views.PayPeriod{Span: spanText(lang, pe.PeriodStart, pe.PeriodEnd), Type: pe.PeriodType,
			Status: pe.Status, Count: pe.TransactionsCount,
			Earnings:   amountView(lang, pe.TotalEarnings, pe.Currency),
			Deductions: amountView(lang, pe.TotalDeductions.Neg(), pe.Currency),
			Net:        amountView(lang, pe.NetAmount, pe.Currency)})
	}
	for i, pe := range periods {
		d.Periods[i].Payslip = payslipLink(id.String(), pe.ID.String(), d.Periods[i].Span, pe.Currency)
	}
	title := "pay.title"
	return p.render(c, http.StatusOK, title, views.PayPage(d))
}
