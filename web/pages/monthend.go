package pages

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// monthEndPath is the month-end page; monthEndPerPage its page size.
const (
	monthEndPath    = "/finance/month-end"
	monthEndPerPage = 100
)

// mountMonthEnd registers the month-end page (docs/finance.md,
// "Month-end"): every driver's pay period of a month, the bulk close and
// pay behind a confirmation, the payroll export.
func (p *Pages) mountMonthEnd(r *web.Routes) {
	p.addNav(views.NavItem{Href: monthEndPath, Label: "nav.month_end", Icon: "clock", Description: "nav.month_end.about"}, auth.PayrollRead)
	r.GET(monthEndPath, p.monthEnd)
	r.POST(monthEndPath, p.monthEndBulk)
	r.GET("/finance/payroll", p.payrollExport)
}

// monthEndURL is the month-end page of a month with only open periods
// shown (the home page's link to the periods to close).
func monthEndURL(month civil.Date, statuses ...string) string {
	st := monthEndState{Month: month.MonthStart(), Type: finance.PeriodMonthly, Statuses: statuses}
	return st.url()
}

// monthEndState is the page's month and filters as the address (or the
// bulk form) holds them.
type monthEndState struct {
	Month    civil.Date
	Type     string
	Offices  []string
	Statuses []string
	Page     int
	// badMonth: the month given could not be read (the default is shown).
	badMonth bool
}

// readMonthEndState reads the state; the month defaults to last month in
// the company's time zone, the type to monthly.
func readMonthEndState(pr auth.Principal, q url.Values) monthEndState {
	s := monthEndState{
		Month: pr.Today().MonthStart().AddMonths(-1), Type: strings.TrimSpace(q.Get("period_type")),
		Offices: listValues(q, "office_id"), Statuses: listValues(q, "status"),
	}
	if raw := strings.TrimSpace(q.Get("month")); raw != "" {
		if m, err := rating.ParsePeriod(raw); err == nil && m.First().Year() >= 1900 && m.First().Year() <= 2200 {
			s.Month = m.First()
		} else {
			s.badMonth = true
		}
	}
	if s.Type == "" {
		s.Type = finance.PeriodMonthly
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

func (s monthEndState) monthValue() string { return s.Month.String()[:7] }

// url is the canonical address of the state.
func (s monthEndState) url() string {
	q := url.Values{}
	q.Set("month", s.monthValue())
	if s.Type != finance.PeriodMonthly {
		q.Set("period_type", s.Type)
	}
	if len(s.Offices) > 0 {
		q.Set("office_id", strings.Join(s.Offices, ","))
	}
	if len(s.Statuses) > 0 {
		q.Set("status", strings.Join(s.Statuses, ","))
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	return monthEndPath + "?" + q.Encode()
}

// officeIDs are the office filter's ids; a malformed one names no office
// (nobody), as on the approval queue.
func (s monthEndState) officeIDs() []uuid.UUID {
	var out []uuid.UUID
	for _, raw := range s.Offices {
		id, _ := uuid.Parse(raw)
		out = append(out, id)
	}
	return out
}

func (s monthEndState) filter() finance.MonthFilter {
	return finance.MonthFilter{PeriodStart: s.Month.String(), Types: []string{s.Type}, Statuses: s.Statuses,
		OfficeIDs: s.officeIDs(), Page: paging.Request{Number: s.Page, Size: monthEndPerPage}}
}

// monthEnd shows the month's periods (admin, accountant, hr_manager; the
// buttons for those who may close and pay).
func (p *Pages) monthEnd(c echo.Context) error {
	pr := web.Principal(c)
	st := readMonthEndState(pr, c.QueryParams())
	d, err := p.monthEndData(c, pr, &st, nil)
	if err != nil {
		return err
	}
	if len(d.Rows) == 0 && st.Page > 1 {
		st.Page = d.Pager.LastPage
		return p.redirect(c, st.url())
	}
	return p.render(c, http.StatusOK, "monthend.title", views.MonthEnd(d))
}

// monthEndData lists the month for the state; refused filters are named
// and left out. selected keeps rows ticked (the refused ones after a bulk
// action).
func (p *Pages) monthEndData(c echo.Context, pr auth.Principal, st *monthEndState, selected map[string]bool) (views.MonthEndData, error) {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	var problems []string
	if st.badMonth {
		problems = append(problems, lang.T("monthend.filter.bad_month", "month", monthLabel(lang, rating.PeriodOf(st.Month))))
	}
	list, err := p.svc.Finance.ListMonthPeriods(ctx, pr, finance.Given(st.filter()))
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		problems = append(problems, r.messages()...)
		for f := range r.fields {
			switch f {
			case "status":
				st.Statuses = nil
			case "period_type":
				st.Type = finance.PeriodMonthly
			}
		}
		list, err = p.svc.Finance.ListMonthPeriods(ctx, pr, finance.Given(st.filter()))
	}
	if err != nil {
		return views.MonthEndData{}, err
	}
	month := rating.PeriodOf(st.Month)
	prev, next := *st, *st
	prev.Month, next.Month, prev.Page, next.Page = st.Month.AddMonths(-1), st.Month.AddMonths(1), 1, 1
	clear := monthEndState{Month: st.Month, Type: finance.PeriodMonthly}
	payroll := "/finance/payroll?period_start=" + st.Month.String() + "&format="
	d := views.MonthEndData{
		Month: st.monthValue(), MonthText: monthLabel(lang, month),
		PrevURL: prev.url(), NextURL: next.url(), ClearURL: clear.url(),
		Type: st.Type, OfficeIDs: st.Offices, StatusValues: st.Statuses,
		CanManage: shows(pr, auth.PeriodsManage), CSRF: csrfToken(c),
		ExportCSV: payroll + "csv", ExportXLSX: payroll + "xlsx",
		Problem: strings.Join(problems, " "),
	}
	for _, t := range finance.PeriodTypes {
		d.Types = append(d.Types, views.Option{Value: t, Label: lang.T("finance.period.type." + t), Selected: t == st.Type})
	}
	for _, s := range finance.PeriodStatuses {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("finance.period.status." + s), Selected: slices.Contains(st.Statuses, s)})
	}
	offices, err := p.svc.Drivers.Offices(ctx, pr)
	if err != nil {
		return views.MonthEndData{}, err
	}
	for _, o := range offices {
		d.Offices = append(d.Offices, views.Option{Value: o.ID.String(), Label: o.Name, Selected: slices.Contains(st.Offices, o.ID.String())})
	}
	sm := list.Summary
	d.Summary = views.MonthEndSummary{
		Periods: sm.Periods(), Open: sm.Open.Periods, Closed: sm.Closed.Periods, Paid: sm.Paid.Periods,
		Pending:        sm.Open.Pending + sm.Closed.Pending + sm.Paid.Pending,
		PendingPeriods: sm.Open.WithPending + sm.Closed.WithPending + sm.Paid.WithPending,
	}
	for _, t := range sm.Totals {
		d.Summary.Nets = append(d.Summary.Nets, views.CurrencyAmount{Currency: t.Currency, Amount: amountView(lang, t.Net, t.Currency)})
	}
	for _, mp := range list.Items {
		row := views.MonthEndRow{
			PeriodID: mp.ID.String(), DriverID: mp.Driver.ID.String(), DriverName: mp.Driver.Name, DriverNumber: mp.Driver.InternalNumber,
			PeriodsURL: ledgerURL(mp.Driver.ID) + "/periods#period-" + mp.ID.String(),
			Status:     mp.Status, Currency: mp.Currency, Pending: mp.PendingCount,
			Earnings: amountView(lang, mp.TotalEarnings, mp.Currency), Deductions: negativeView(lang, mp.TotalDeductions, mp.Currency),
			Net: amountView(lang, mp.NetAmount, mp.Currency), Selected: selected[mp.ID.String()],
		}
		if mp.PeriodType != finance.PeriodMonthly {
			row.Span = spanText(lang, mp.PeriodStart, mp.PeriodEnd)
		}
		d.Rows = append(d.Rows, row)
	}
	d.Pager = pager(list.Page, func(n int) string { at := *st; at.Page = n; return at.url() })
	return d, nil
}

// monthEndBulk closes or marks paid the selected periods (ticked rows, or
// every period matching the page's filter): first a confirmation naming
// what will happen and the pending transactions a forced close closes
// over, then, once confirmed, each period through the per-period close or
// pay, and the page again with each period's result.
func (p *Pages) monthEndBulk(c echo.Context) error {
	pr := web.Principal(c)
	if err := p.svc.Finance.MayMovePeriods(pr); err != nil {
		return err
	}
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	form, err := c.FormParams()
	if err != nil {
		return apperr.BadRequest("msg.common.form_unreadable")
	}
	st := readMonthEndState(pr, form)
	st.Page = 1
	action := form.Get("action")
	all := form.Get("all") == "1"
	var ids []uuid.UUID
	selected := map[string]bool{}
	for _, raw := range form["period_id"] {
		if id, err := uuid.Parse(raw); err == nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
			selected[id.String()] = true
		}
	}
	refuse := func(msg string) error {
		d, err := p.monthEndData(c, pr, &st, selected)
		if err != nil {
			return err
		}
		d.Problem = strings.TrimSpace(d.Problem + " " + msg)
		return p.render(c, http.StatusUnprocessableEntity, "monthend.title", views.MonthEnd(d))
	}
	switch {
	case action != "close" && action != "pay":
		return refuse(lang.T("monthend.unknown_action"))
	case st.badMonth:
		return refuse("")
	case !all && len(ids) == 0:
		return refuse(lang.T("monthend.none_selected"))
	}
	in := finance.BulkPeriodsInput{PeriodStart: st.Month.String(), PeriodType: st.Type, Force: form.Get("force") == "1"}
	hidden := []views.HiddenField{{Name: "action", Value: action}, {Name: "month", Value: st.monthValue()}, {Name: "period_type", Value: st.Type}}
	for _, o := range st.Offices {
		hidden = append(hidden, views.HiddenField{Name: "office_id", Value: o})
	}
	for _, s := range st.Statuses {
		hidden = append(hidden, views.HiddenField{Name: "status", Value: s})
	}
	if all {
		in.OfficeIDs, in.Statuses = st.officeIDs(), st.Statuses
		hidden = append(hidden, views.HiddenField{Name: "all", Value: "1"})
	} else {
		in.PeriodIDs = ids
		for _, id := range ids {
			hidden = append(hidden, views.HiddenField{Name: "period_id", Value: id.String()})
		}
	}
	if form.Get("confirmed") != "1" {
		sm, err := p.svc.Finance.PreviewPeriods(ctx, pr, finance.Given(in))
		if r, _ := refusalOf(lang, err, noFile); r.invalid() {
			return refuse(r.text())
		}
		if err != nil {
			return err
		}
		cd := views.MonthEndConfirmData{
			Action: action, MonthText: monthLabel(lang, rating.PeriodOf(st.Month)), Selected: sm.Periods(),
			Hidden: hidden, CSRF: csrfToken(c), CancelURL: st.url(),
		}
		if action == "close" {
			cd.Movable, cd.Pending, cd.PendingPeriods = sm.Open.Periods, sm.Open.Pending, sm.Open.WithPending
		} else {
			cd.Movable = sm.Closed.Periods
		}
		cd.Skip = cd.Selected - cd.Movable
		return p.render(c, http.StatusOK, "monthend.confirm.title."+action, views.MonthEndConfirm(cd))
	}
	var results []finance.BulkResult
	if action == "close" {
		results, err = p.svc.Finance.ClosePeriods(ctx, pr, finance.Given(in))
	} else {
		results, err = p.svc.Finance.PayPeriods(ctx, pr, finance.Given(in))
	}
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		return refuse(r.text())
	}
	if err != nil {
		return err
	}
	res := &views.MonthEndResults{Action: action, Total: len(results), Rows: []views.MonthEndResult{}}
	refused := map[string]bool{}
	for _, r := range results {
		row := views.MonthEndResult{DriverName: r.DriverName, DriverNumber: r.DriverNumber, Currency: r.Currency, URL: ledgerURL(r.DriverID) + "/periods"}
		if r.Err == nil {
			res.Done++
			row.OK, row.Text = true, lang.T("monthend.result."+r.Result)
		} else {
			row.Text = refusalText(lang, r.Err)
			if r.PeriodID != nil {
				refused[r.PeriodID.String()] = true
			}
		}
		res.Rows = append(res.Rows, row)
	}
	d, err := p.monthEndData(c, pr, &st, refused)
	if err != nil {
		return err
	}
	d.Results = res
	return p.render(c, http.StatusOK, "monthend.title", views.MonthEnd(d))
}

// payrollExport downloads the month's payroll, the API's export on the
// same service (docs/finance.md, "Payroll export"), headers in the page's
// language.
func (p *Pages) payrollExport(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	var format export.Format
	read := func(periodStart *string) error {
		*periodStart = strings.TrimSpace(c.QueryParam("period_start"))
		var err error
		format, err = export.FormatParam(c.QueryParam("format"))
		return err
	}
	return p.svc.Finance.ExportPayroll(ctx, pr, read, lang, func(month civil.Date) (export.Writer, error) {
		var w export.Writer
		err := web.Export(c, format, finance.PayrollName(month), lang.T("payroll.sheet"), func(start func() (export.Writer, error)) error {
			var err error
			w, err = start()
			return err
		})
		return w, err
	})
}
