// A driver's pay periods: the list, the close confirmation and the close,
// the reopen and the mark paid.

package pages

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

func (p *Pages) financePeriods(c echo.Context) error {
	return p.renderPeriods(c, web.Principal(c), web.PathID(c, "id"), periodsAnswer{}, http.StatusOK)
}

// periodsAnswer is what the periods page shows after a refused action:
// the refusal in the period's row, and the reason a refused reopen sent.
type periodsAnswer struct {
	id, refusal, reason string
}

func (p *Pages) renderPeriods(c echo.Context, pr auth.Principal, driverID uuid.UUID, ans periodsAnswer, status int) error {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, driverID, finance.Given(finance.PeriodFilter{}))
	if err != nil {
		return err
	}
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	base := ledgerURL(driverID)
	d := views.PeriodsData{Driver: header, LedgerURL: base, CSRF: csrfToken(c)}
	manage := shows(pr, auth.PeriodsManage)
	reopen := shows(pr, auth.PeriodsReopen)
	loc, today := pr.Location(), pr.Today()
	shown := false
	for _, per := range periods {
		id := per.ID.String()
		open := per.Status == finance.PeriodOpen
		row := views.PeriodRow{
			ID: id, Start: lang.Date(per.PeriodStart), End: lang.Date(per.PeriodEnd), Type: per.PeriodType,
			Status: per.Status, Currency: per.Currency, Count: per.TransactionsCount,
			Earnings: amountView(lang, per.TotalEarnings, per.Currency), Deductions: negativeView(lang, per.TotalDeductions, per.Currency),
			Net:             amountView(lang, per.NetAmount, per.Currency),
			TransactionsURL: base + "?period_id=" + id + "&status=all",
			Close:           manage && open && finance.Closable(per, today), Pay: manage && per.Status == finance.PeriodClosed,
			Reopen:   reopen && per.Status == finance.PeriodClosed,
			CloseURL: base + "/periods/" + id + "/close", PayURL: base + "/periods/" + id + "/pay", ReopenURL: base + "/periods/" + id + "/reopen",
		}
		if manage && open && !row.Close {
			row.ClosableFrom = lang.Date(per.PeriodEnd.AddDays(1))
		}
		if id == ans.id {
			row.Error, row.ReopenReason, shown = ans.refusal, ans.reason, true
		}
		if per.ClosedAt != nil {
			row.ClosedInfo = lang.T("finance.periods.closed_info", "date", lang.Day(*per.ClosedAt, loc), "name", deref(per.ClosedBy))
		}
		if per.PaidAt != nil {
			row.PaidInfo = lang.T("finance.periods.paid_info", "date", lang.Day(*per.PaidAt, loc), "name", deref(per.PaidBy))
		}
		row.Payslip = payslipLink(driverID.String(), id, spanText(lang, per.PeriodStart, per.PeriodEnd), per.Currency)
		d.Rows = append(d.Rows, row)
	}
	if ans.refusal != "" && !shown { // the period is gone
		d.Problem = ans.refusal
	}
	return p.render(c, status, "finance.periods.title", views.FinancePeriods(d))
}

// periodsRefusal shows the periods page with the refusal in the row it
// concerns (above the table when the period is gone); reason is what a
// refused reopen sent.
func (p *Pages) periodsRefusal(c echo.Context, pr auth.Principal, driverID uuid.UUID, rowID string, refusal error, reason string) error {
	r, _ := refusalOf(i18n.From(c.Request().Context()), refusal, noFile)
	return p.renderPeriods(c, pr, driverID, periodsAnswer{id: rowID, refusal: r.text(), reason: reason}, r.status)
}

// periodsURL is the driver's periods page.
func periodsURL(driverID uuid.UUID) string { return ledgerURL(driverID) + "/periods" }

// confirmClosePeriod asks before closing a period and lists what in it is
// still pending (docs/web-app.md, "Finance pages"). A period that cannot be
// closed (not open, or its last day to come) has no such page: back to the
// periods, which say why.
func (p *Pages) confirmClosePeriod(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "period_id")
	_, err := p.svc.Finance.PeriodToClose(ctx, pr, driverID, id)
	if goneRecord(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if err != nil {
		return err
	}
	return p.renderCloseConfirm(c, pr, driverID, id, "", http.StatusOK)
}

// closePendingRows is how many pending transactions the close
// confirmation lists.
const closePendingRows = 100

// renderCloseConfirm shows the close confirmation of the period id, with a
// refusal of the close (problem) when there is one.
func (p *Pages) renderCloseConfirm(c echo.Context, pr auth.Principal, driverID, id uuid.UUID, problem string, status int) error {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, driverID, finance.Given(finance.PeriodFilter{}))
	if err != nil {
		return err
	}
	i := slices.IndexFunc(periods, func(per finance.Period) bool { return per.ID == id })
	if i < 0 || periods[i].Status != finance.PeriodOpen || !finance.Closable(periods[i], pr.Today()) {
		return p.redirect(c, periodsURL(driverID))
	}
	per := periods[i]
	pending := []string{finance.StatusPending, finance.StatusDisputed}
	list, err := p.svc.Finance.ListTransactions(ctx, pr, driverID, finance.TransactionFilter{PeriodID: &id, Statuses: pending, Page: paging.Request{Number: 1, Size: closePendingRows}})
	if err != nil {
		return err
	}
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	base := ledgerURL(driverID)
	d := views.ClosePeriodData{
		Driver: header, Span: lang.Date(per.PeriodStart) + " – " + lang.Date(per.PeriodEnd), Type: per.PeriodType, Currency: per.Currency,
		Earnings: amountView(lang, per.TotalEarnings, per.Currency), Deductions: negativeView(lang, per.TotalDeductions, per.Currency),
		Net: amountView(lang, per.NetAmount, per.Currency), Count: per.TransactionsCount, PendingTotal: list.Total,
		Action: base + "/periods/" + id.String() + "/close", CSRF: csrfToken(c), CancelURL: periodsURL(driverID),
		PendingURL: base + "?period_id=" + id.String() + "&status=" + url.QueryEscape(strings.Join(pending, ",")), Problem: problem,
	}
	for _, t := range list.Items {
		d.Pending = append(d.Pending, views.FinanceRow{ID: t.ID.String(), Date: lang.Date(t.TransactionDate), Type: t.TransactionType,
			Description: deref(t.Description), Amount: amountView(lang, t.Amount, t.Currency), Status: t.Status})
	}
	return p.render(c, status, "finance.close.page_title", views.ClosePeriodConfirm(d))
}

// closePeriod closes a period from its confirmation: with force when the
// confirmation listed pending transactions. A close refused for pending
// transactions (some arrived since) shows the confirmation again with
// them; any other refusal shows in the period's row.
func (p *Pages) closePeriod(c echo.Context) error {
	return p.periodAction(c, "finance.flash.period_close", "",
		func(ctx context.Context, pr auth.Principal, driverID, id uuid.UUID) error {
			_, err := p.svc.Finance.ClosePeriod(ctx, pr, driverID, id, func(in *finance.ClosePeriodInput) error { return web.Bind(c, in) })
			if finance.PendingOf(err) != nil {
				r, _ := refusalOf(i18n.From(ctx), err, noFile)
				return p.renderCloseConfirm(c, pr, web.PathID(c, "id"), web.PathID(c, "period_id"), r.text(), r.status)
			}
			return err
		})
}

// reopenPeriod reopens a closed period with the reason from its row; a
// refusal (no reason, a paid period) shows in the row with the reason sent.
func (p *Pages) reopenPeriod(c echo.Context) error {
	reason := c.FormValue("reason")
	return p.periodAction(c, "finance.reopen.done", reason,
		func(ctx context.Context, pr auth.Principal, driverID, id uuid.UUID) error {
			_, err := p.svc.Finance.ReopenPeriod(ctx, pr, driverID, id, finance.Given(finance.ReopenInput{Reason: &reason}))
			return err
		})
}

// payPeriod marks a closed period paid from its row; a refusal shows in
// the row.
func (p *Pages) payPeriod(c echo.Context) error {
	return p.periodAction(c, "finance.flash.period_pay", "",
		func(ctx context.Context, pr auth.Principal, driverID, id uuid.UUID) error {
			_, err := p.svc.Finance.PayPeriod(ctx, pr, driverID, id, nil)
			return err
		})
}

// periodAction is the one flow of a period's row action: do, the service
// call that checks the caller and acts; a refusal of the action (not of the
// caller) shows in the period's row (with reason, the text the row's form
// sent; a period gone without it), success flashes done and goes back to
// the periods page. do may answer the request itself (the close's
// confirmation) and return its result.
func (p *Pages) periodAction(c echo.Context, done, reason string,
	do func(ctx context.Context, pr auth.Principal, driverID, id uuid.UUID) error) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "period_id")
	err := do(ctx, pr, driverID, id)
	if c.Response().Committed {
		return err
	}
	if goneRecord(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if _, ok := refusalOf(i18n.From(ctx), err, noFile); ok {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, reason)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, done)
	return p.redirect(c, periodsURL(driverID))
}
