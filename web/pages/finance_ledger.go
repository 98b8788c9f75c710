// A driver's ledger (/drivers/:id/finance): the list with its filters,
// sort and pages, the actions offered in each row, and its export.

package pages

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

func (p *Pages) financeLedger(c echo.Context) error {
	pr := web.Principal(c)
	driverID := web.PathID(c, "id")
	st := readFinanceState(ledgerURL(driverID), false, c.QueryParams())
	return p.renderLedger(c, pr, driverID, st, nil, http.StatusOK, "")
}

// renderLedger shows the ledger for the state; rowErrors are refusals
// shown in their rows, problem one about the page.
func (p *Pages) renderLedger(c echo.Context, pr auth.Principal, driverID uuid.UUID, st financeState, rowErrors map[string]string, status int, problem string) error {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	var problems []string
	f := st.filter()
	if len(st.bad) > 0 {
		problems = append(problems, lang.T("finance.filter.bad_value"))
	}
	list, err := p.svc.Finance.ListTransactions(ctx, pr, driverID, f)
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		problems = append(problems, r.messages()...)
		st.drop(r.fields)
		list, err = p.svc.Finance.ListTransactions(ctx, pr, driverID, st.filter())
	}
	if err != nil {
		return err
	}
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	if len(list.Items) == 0 && st.Page > 1 && rowErrors == nil {
		st.Page = list.LastPage()
		return p.redirect(c, st.url())
	}
	aggs, err := p.svc.Finance.Aggregates(ctx, pr, driverID, finance.Given(finance.AggregateQuery{}))
	if err != nil {
		return err
	}
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, driverID, finance.Given(finance.PeriodFilter{}))
	if err != nil {
		return err
	}
	base := ledgerURL(driverID)
	d := views.LedgerData{
		Driver: header, Filters: st.filterForm(lang, base), Summary: summaryView(lang, list.Summary, list.Summaries),
		CSRF: csrfToken(c), Back: st.url(), PeriodsURL: base + "/periods", Problem: problem,
	}
	d.Filters.ShowPeriods = true
	d.Filters.Problem = strings.Join(problems, " ")
	for _, per := range periods {
		label := lang.Date(per.PeriodStart) + " – " + lang.Date(per.PeriodEnd) + " · " + per.Currency
		d.Filters.Periods = append(d.Filters.Periods, views.Option{Value: per.ID.String(), Label: label, Selected: per.ID.String() == st.PeriodID})
	}
	if shows(pr, auth.FinanceWrite) {
		d.NewURL = base + "/new"
	}
	exp := st
	exp.base, exp.Page = base+"/export", 1
	d.ExportCSV, d.ExportXLSX = withParam(exp.url(), "format", "csv"), withParam(exp.url(), "format", "xlsx")
	for _, typ := range finance.AggregateTypes {
		a, ok := aggs[typ]
		if !ok {
			continue
		}
		d.Cards = append(d.Cards, views.MoneySummary{
			LabelKey: "finance.card." + typ, Currency: a.Currency,
			Earnings: amountView(lang, a.TotalEarnings, a.Currency), Deductions: negativeView(lang, a.TotalDeductions, a.Currency),
			Penalties: negativeView(lang, a.TotalPenalties, a.Currency), Net: amountView(lang, a.NetAmount, a.Currency),
			AvgMonthly: amountView(lang, a.AvgMonthlyEarnings, a.Currency), PenaltiesCount: a.PenaltiesCount, ShowAvg: true,
		})
	}
	if f.PeriodID != nil {
		for _, per := range periods {
			if per.ID == *f.PeriodID && per.Status != finance.PeriodOpen {
				d.Locked = lang.T("finance.locked.banner." + per.Status)
			}
		}
	}
	today := pr.Today()
	shown := map[string]bool{}
	for _, t := range list.Items {
		row := p.ledgerRow(lang, pr, t, today, periods)
		row.Error = rowErrors[row.ID]
		shown[row.ID] = true
		d.Rows = append(d.Rows, row)
	}
	for id, msg := range rowErrors {
		if !shown[id] { // its row is not on this page (gone, or filtered out)
			d.Problem = strings.TrimSpace(d.Problem + " " + msg)
		}
	}
	d.Pager = pager(list.Page, func(n int) string { at := st; at.Page = n; return at.url() })
	return p.render(c, status, "finance.ledger.crumb", views.FinanceLedger(d))
}

// ledgerRow is a transaction with the actions the caller's role may try
// on it in its status; the service decides (a refusal shows in the row).
// A transaction the rules keep from being deleted (paid, older than 90
// days, a penalty's) says why instead of offering the delete, and one
// inside a closed or paid period of periods (the driver's) is offered
// nothing and says why.
func (p *Pages) ledgerRow(lang i18n.Lang, pr auth.Principal, t finance.Transaction, today civil.Date, periods []finance.Period) views.FinanceRow {
	row := views.FinanceRow{
		ID: t.ID.String(), URL: ledgerURL(t.DriverID) + "/" + t.ID.String(),
		Date: lang.Date(t.TransactionDate), Type: t.TransactionType, Category: finance.CategoryText(lang, t.Category),
		Description: deref(t.Description), Amount: amountView(lang, t.Amount, t.Currency), Status: t.Status,
		Penalty: t.PenaltyID != nil && !t.Correction(),
	}
	if t.Correction() {
		row.Correction, row.PenaltyURL = correctionText(lang, t), penaltyURL(t.DriverID, *t.PenaltyID)
	}
	if t.PaymentDate != nil {
		row.PaymentDate = lang.Date(*t.PaymentDate)
	}
	if lock, ok := finance.LockedBy(periods, t.TransactionDate, t.Currency); ok {
		row.Locked = lang.T("finance.locked." + lock.Status)
		return row
	}
	write := shows(pr, auth.FinanceWrite)
	if write {
		row.Approve = t.Status == finance.StatusPending
		row.Pay = t.Status == finance.StatusApproved
		row.Cancel = (t.Status == finance.StatusPending || t.Status == finance.StatusApproved) && t.PenaltyID == nil
		row.Edit = t.Status == finance.StatusPending || t.Status == finance.StatusApproved
	}
	if write || shows(pr, auth.FinanceDelete) {
		why := finance.DeleteAllowed(t, today)
		switch {
		case why != nil && t.Status != finance.StatusCancelled:
			row.DeleteBlocked = refusalText(lang, why)
		case why == nil && shows(pr, auth.FinanceDelete):
			row.DeleteURL = row.URL + "/delete"
		}
	}
	return row
}

// ledgerRefusal shows the ledger at back with the refusal in the row it
// concerns, answered with the refusal's status.
func (p *Pages) ledgerRefusal(c echo.Context, pr auth.Principal, driverID uuid.UUID, back, rowID string, refusal error) error {
	bu, _ := url.Parse(back)
	st := readFinanceState(ledgerURL(driverID), false, bu.Query())
	r, _ := refusalOf(i18n.From(c.Request().Context()), refusal, noFile)
	return p.renderLedger(c, pr, driverID, st, map[string]string{rowID: r.text()}, r.status, "")
}

// financeExport downloads the ledger's filtered transactions, the API's
// export on the same service (docs/finance.md, "Export").
func (p *Pages) financeExport(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID := web.PathID(c, "id")
	lang := i18n.From(ctx)
	var format export.Format
	read := func(f *finance.TransactionFilter) error {
		st := readFinanceState(ledgerURL(driverID), false, c.QueryParams())
		*f = st.filter()
		if len(st.bad) > 0 {
			return apperr.Invalid(st.bad[0], "msg.common.date_iso", "field", i18n.M("field.finance."+strings.TrimSuffix(st.bad[0], "_id")))
		}
		var err error
		format, err = export.FormatParam(c.QueryParam("format"))
		return err
	}
	return p.svc.Finance.ExportTransactions(ctx, pr, driverID, read, lang, func(name string) (export.Writer, error) {
		var w export.Writer
		err := web.Export(c, format, name, lang.T("finance.export.sheet"), func(start func() (export.Writer, error)) error {
			var err error
			w, err = start()
			return err
		})
		return w, err
	})
}
