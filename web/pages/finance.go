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
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// financePerPage is the page size of the queue and the ledger.
const financePerPage = 50

func (p *Pages) mountFinance(r *web.Routes) {
	// Finance in the menu is the company-wide queue for the roles that
	// read every driver's finance; a driver's entry is its own pay ("My
	// pay", none for an account linked to no driver).
	p.addOwnNav(views.NavItem{Href: "/finance", Label: "nav.finance", Icon: "banknotes", Description: "nav.finance.about"},
		auth.FinanceRead, func(pr auth.Principal) (views.NavItem, bool) {
			if pr.DriverID == nil {
				return views.NavItem{}, false
			}
			return views.NavItem{Href: payURL(*pr.DriverID), Label: "nav.my_pay", Icon: "banknotes", Description: "nav.my_pay.about"}, true
		})
	r.GET("/finance", p.financeQueue)
	r.POST("/finance", p.financeBulk)
	r.GET("/drivers/:id/finance", p.financeLedger)
	r.GET("/drivers/:id/finance/export", p.financeExport)
	r.GET("/drivers/:id/finance/new", p.newTransaction)
	r.POST("/drivers/:id/finance/new", p.createTransaction)
	r.GET("/drivers/:id/finance/:transaction_id/edit", p.editTransaction)
	r.POST("/drivers/:id/finance/:transaction_id/edit", p.updateTransaction)
	r.POST("/drivers/:id/finance/:transaction_id/status", p.moveTransaction)
	r.GET("/drivers/:id/finance/:transaction_id/delete", p.confirmDeleteTransaction)
	r.POST("/drivers/:id/finance/:transaction_id/delete", p.deleteTransaction)
	r.GET("/drivers/:id/finance/periods", p.financePeriods)
	r.GET("/drivers/:id/finance/periods/:period_id/close", p.confirmClosePeriod)
	r.POST("/drivers/:id/finance/periods/:period_id/close", p.closePeriod)
	r.POST("/drivers/:id/finance/periods/:period_id/reopen", p.reopenPeriod)
	r.POST("/drivers/:id/finance/periods/:period_id/pay", p.payPeriod)
	p.mountMonthEnd(r)
}

func ledgerURL(driverID uuid.UUID) string { return driverURL(driverID) + "/finance" }

// financeState is the filters, sort and page of the queue or a ledger as
// the address holds them (the API's parameter names).
type financeState struct {
	base                         string // the page's path
	Types, Statuses              []string
	From, To, Currency, PeriodID string
	// The queue's: a driver by name or number, or by id; offices.
	Driver, DriverID  string
	Offices           []string
	SortBy, SortOrder string
	Page              int
	// statusGiven: the address names the statuses, even none (= all);
	// without it the queue shows what waits for approval.
	statusGiven bool
	queue       bool
	// bad lists the filters left out (unreadable dates).
	bad []string
}

func readFinanceState(base string, queue bool, q url.Values) financeState {
	s := financeState{
		base: base, queue: queue,
		Types: listValues(q, "type"), Statuses: listValues(q, "status"),
		From: strings.TrimSpace(q.Get("from_date")), To: strings.TrimSpace(q.Get("to_date")),
		Currency: strings.ToUpper(strings.TrimSpace(q.Get("currency"))), PeriodID: strings.TrimSpace(q.Get("period_id")),
		Driver: strings.TrimSpace(q.Get("driver")), DriverID: strings.TrimSpace(q.Get("driver_id")),
		Offices: listValues(q, "office_id"), SortBy: q.Get("sort_by"), SortOrder: q.Get("sort_order"),
	}
	_, s.statusGiven = q["status"]
	if slices.Contains(s.Statuses, "all") {
		s.Statuses = nil
	}
	if queue && !s.statusGiven {
		s.Statuses = []string{finance.StatusPending}
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

// url is the canonical address of the state.
func (s financeState) url() string {
	q := url.Values{}
	set := func(name string, v []string) {
		if len(v) > 0 {
			q.Set(name, strings.Join(v, ","))
		}
	}
	set("type", s.Types)
	if s.queue && (len(s.Statuses) != 1 || s.Statuses[0] != finance.StatusPending) {
		if len(s.Statuses) == 0 {
			q.Set("status", "all")
		}
	}
	if !s.queue || len(s.Statuses) != 1 || s.Statuses[0] != finance.StatusPending {
		set("status", s.Statuses)
	}
	for name, v := range map[string]string{"from_date": s.From, "to_date": s.To, "currency": s.Currency,
		"period_id": s.PeriodID, "driver": s.Driver, "driver_id": s.DriverID, "sort_by": s.SortBy, "sort_order": s.SortOrder} {
		if v != "" {
			q.Set(name, v)
		}
	}
	set("office_id", s.Offices)
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	if len(q) == 0 {
		return s.base
	}
	return s.base + "?" + q.Encode()
}

// filter is the service's filter of the state; a date that cannot be
// read is left out and named in bad.
func (s *financeState) filter() finance.TransactionFilter {
	f := finance.TransactionFilter{Types: s.Types, Statuses: s.Statuses, Currency: s.Currency, Page: s.Page, PerPage: financePerPage}
	date := func(name string, raw *string) *civil.Date {
		if *raw == "" {
			return nil
		}
		d, err := civil.Parse(*raw)
		if err != nil {
			s.bad = append(s.bad, name)
			*raw = ""
			return nil
		}
		return &d
	}
	f.From, f.To = date("from_date", &s.From), date("to_date", &s.To)
	if s.PeriodID != "" {
		id, err := uuid.Parse(s.PeriodID)
		if err != nil {
			s.bad = append(s.bad, "period_id")
			s.PeriodID = ""
		} else {
			f.PeriodID = &id
		}
	}
	return f
}

// drop clears the filters the service refused.
func (s *financeState) drop(fields map[string][]string) {
	for f := range fields {
		switch f {
		case "type":
			s.Types = nil
		case "status":
			s.Statuses = nil
		case "currency":
			s.Currency = ""
		case "to_date":
			s.To = ""
		case "period_id":
			s.PeriodID = ""
		case "sort_by":
			s.SortBy = ""
		case "sort_order":
			s.SortOrder = ""
		}
	}
}

// filterForm fills the filter form of the state.
func (s financeState) filterForm(lang i18n.Lang, clear string) views.FinanceFilters {
	f := views.FinanceFilters{Action: s.base, From: s.From, To: s.To, Currency: s.Currency, SortBy: s.SortBy,
		SortOrder: s.SortOrder, Driver: s.Driver, ShowDriver: s.queue, ClearURL: clear}
	for _, t := range finance.StoredTypes {
		f.Types = append(f.Types, views.Option{Value: t, Label: lang.T("finance.type." + t), Selected: slices.Contains(s.Types, t)})
	}
	for _, st := range finance.Statuses {
		f.Statuses = append(f.Statuses, views.Option{Value: st, Label: lang.T("finance.status." + st), Selected: slices.Contains(s.Statuses, st)})
	}
	return f
}

// amountView formats money for the language; negative amounts are marked.
func amountView(lang i18n.Lang, a money.Amount, currency string) views.Amount {
	return views.Amount{Text: lang.Money(a.Decimal(), currency), Negative: a.Sign() < 0}
}

// negativeView shows an absolute sum of deductions as the negative amount
// it is.
func negativeView(lang i18n.Lang, a money.Amount, currency string) views.Amount {
	return amountView(lang, a.Neg(), currency)
}

func summaryView(lang i18n.Lang, sm finance.Summary, all []finance.Summary) views.MoneySummary {
	v := views.MoneySummary{
		Currency: sm.Currency, Earnings: amountView(lang, sm.TotalEarnings, sm.Currency),
		Deductions: negativeView(lang, sm.TotalDeductions, sm.Currency), Penalties: negativeView(lang, sm.TotalPenalties, sm.Currency),
		Net: amountView(lang, sm.NetAmount, sm.Currency),
	}
	for _, o := range all {
		if o.Currency != sm.Currency {
			v.Others = append(v.Others, views.MoneySummary{Currency: o.Currency, Net: amountView(lang, o.NetAmount, o.Currency)})
		}
	}
	return v
}

func pagerOf(page, total, rows int, at func(n int) string) views.Pager {
	pg := views.Pager{Total: total, Page: page, LastPage: lastPage(total, financePerPage)}
	if rows > 0 {
		pg.From = (page-1)*financePerPage + 1
		pg.To = pg.From + rows - 1
	}
	pg.PrevURL, pg.NextURL = pagerURLs(page, pg.LastPage, at)
	return pg
}

// errorText is a refusal in the language: its message, else its field
// messages.
func errorText(lang i18n.Lang, err error) string {
	msg, fields := messagesIn(lang, err)
	if len(fields) > 0 {
		return strings.Join(translatedMessages(lang, err), " ")
	}
	return msg
}

// refusalStatus is the HTTP status of a service refusal.
func refusalStatus(err error) int {
	status, _, _ := web.ToBody(err, "")
	return status
}

// refused reports whether err is a refusal to show beside its record (a
// state rule, bad input, a record gone or not allowed), not a failure.
func refused(err error) bool {
	switch apperr.KindOf(err) {
	case apperr.KindConflict, apperr.KindValidation, apperr.KindNotFound, apperr.KindForbidden, apperr.KindAccessDenied, apperr.KindBadRequest:
		return true
	}
	return false
}

// goneRecord reports whether a guard refused because the record (not the
// driver, nor the role) is gone: deleted since the page was shown. The
// page then shows again with the message, rather than an error page.
func goneRecord(err error) bool { return apperr.KindOf(err) == apperr.KindNotFound }

// localBack is a return address posted by a form: a path of this site
// under prefix, else fallback.
func localBack(raw, prefix, fallback string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, prefix) || strings.HasPrefix(raw, "//") {
		return fallback
	}
	return u.RequestURI()
}

// ---- The approval queue ----

var queueColumns = []struct{ label, sortBy, class string }{
	{"finance.col.transaction_date", "transaction_date", ""},
	{"finance.col.driver", "driver", ""},
	{"finance.col.transaction_type", "", ""},
	{"finance.col.status", "", ""},
	{"finance.col.amount", "amount", "text-right"},
}

// financeQueue is every driver's transactions, by default those waiting
// for approval, with the bulk actions.
func (p *Pages) financeQueue(c echo.Context) error {
	pr := web.Principal(c)
	if pr.Grant(auth.FinanceRead) == auth.Own {
		if pr.DriverID != nil {
			return p.redirect(c, ledgerURL(*pr.DriverID))
		}
		return apperr.Forbidden()
	}
	company, err := pr.Scope(auth.FinanceRead)
	if err != nil {
		return err
	}
	st := readFinanceState("/finance", true, c.QueryParams())
	d, err := p.queueData(c, pr, company, &st)
	if err != nil {
		return err
	}
	if len(d.Rows) == 0 && st.Page > 1 {
		st.Page = d.Pager.LastPage
		return p.redirect(c, st.url())
	}
	return p.render(c, http.StatusOK, "finance.queue.title", views.FinanceQueue(d))
}

// queueData lists the queue for the state; refused filters are named and
// left out.
func (p *Pages) queueData(c echo.Context, pr auth.Principal, company auth.Ref, st *financeState) (views.QueueData, error) {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	var problems []string
	f := finance.CompanyFilter{TransactionFilter: st.filter(), SortBy: st.SortBy, SortOrder: st.SortOrder}
	if len(st.bad) > 0 {
		problems = append(problems, lang.T("finance.filter.bad_value"))
	}
	for _, raw := range st.Offices {
		id, _ := uuid.Parse(raw) // a malformed id names no office: nobody
		f.OfficeIDs = append(f.OfficeIDs, id)
	}
	if st.DriverID != "" {
		id, _ := uuid.Parse(st.DriverID)
		f.DriverIDs = append(f.DriverIDs, id)
	}
	if st.Driver != "" {
		ids, err := p.driversNamed(c, pr, st.Driver)
		if err != nil {
			return views.QueueData{}, err
		}
		if len(ids) == 0 {
			problems = append(problems, lang.T("finance.filter.no_driver", "search", st.Driver))
			ids = []uuid.UUID{uuid.Nil}
		}
		f.DriverIDs = append(f.DriverIDs, ids...)
	}
	list, err := p.svc.Finance.ListCompanyTransactions(ctx, pr, company, f)
	if apperr.KindOf(err) == apperr.KindValidation {
		problems = append(problems, translatedMessages(lang, err)...)
		st.drop(translatedFields(lang, err))
		f.TransactionFilter = st.filter()
		f.SortBy, f.SortOrder = st.SortBy, st.SortOrder
		list, err = p.svc.Finance.ListCompanyTransactions(ctx, pr, company, f)
	}
	if err != nil {
		return views.QueueData{}, err
	}
	d := views.QueueData{
		Filters: st.filterForm(lang, "/finance"), Summary: summaryView(lang, list.Summary, list.Summaries),
		CanWrite: pr.Grant(auth.FinanceWrite) != auth.Deny, CSRF: csrfToken(c), Back: st.url(),
	}
	d.Filters.Problem = strings.Join(problems, " ")
	offices, err := p.svc.Drivers.Offices(ctx, pr)
	if err != nil {
		return views.QueueData{}, err
	}
	for _, o := range offices {
		d.Filters.Offices = append(d.Filters.Offices, views.Option{Value: o.ID.String(), Label: o.Name, Selected: slices.Contains(st.Offices, o.ID.String())})
	}
	sortBy, order := st.SortBy, st.SortOrder
	if sortBy == "" {
		sortBy = "transaction_date"
	}
	if order == "" {
		order = "desc"
		if sortBy == "driver" {
			order = "asc"
		}
	}
	for _, col := range queueColumns {
		sc := views.SortColumn{Label: col.label, Class: col.class}
		if col.sortBy != "" {
			next := *st
			next.Page, next.SortBy, next.SortOrder = 1, col.sortBy, "asc"
			if col.sortBy == sortBy {
				sc.Active, sc.Desc = true, order == "desc"
				if !sc.Desc {
					next.SortOrder = "desc"
				}
			}
			sc.URL = next.url()
		}
		d.Columns = append(d.Columns, sc)
	}
	for _, r := range list.Rows {
		d.Rows = append(d.Rows, views.FinanceRow{
			ID: r.ID.String(), URL: ledgerURL(r.DriverID) + "/" + r.ID.String(),
			DriverName: r.DriverName, DriverNumber: r.DriverNumber, DriverURL: ledgerURL(r.DriverID),
			Date: lang.Date(r.TransactionDate), Type: r.TransactionType, Description: deref(r.Description),
			Amount: amountView(lang, r.Amount, r.Currency), Status: r.Status,
		})
	}
	d.Pager = pagerOf(st.Page, list.Total, len(list.Rows), func(n int) string { at := *st; at.Page = n; return at.url() })
	return d, nil
}

// driversNamed finds the drivers a name or number search matches (as the
// drivers list searches: accent-insensitive), at most 100.
func (p *Pages) driversNamed(c echo.Context, pr auth.Principal, search string) ([]uuid.UUID, error) {
	company, err := pr.Scope(auth.DriversRead)
	if err != nil {
		return nil, err
	}
	res, err := p.svc.Drivers.List(c.Request().Context(), pr, company, drivers.ListParams{Search: search, Page: 1, PerPage: 100})
	if apperr.KindOf(err) == apperr.KindValidation {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, 0, len(res.Items))
	for _, it := range res.Items {
		ids = append(ids, it.ID)
	}
	return ids, nil
}

// financeBulk approves or marks paid the selected transactions, one by
// one (each in its own database transaction), and shows the queue again
// with each one's result; a refused one says why.
func (p *Pages) financeBulk(c echo.Context) error {
	pr := web.Principal(c)
	company, err := pr.Scope(auth.FinanceWrite)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	form, err := c.FormParams()
	if err != nil {
		return apperr.BadRequest("msg.common.form_unreadable")
	}
	back := localBack(form.Get("back"), "/finance", "/finance")
	bu, _ := url.Parse(back)
	st := readFinanceState("/finance", true, bu.Query())
	readCompany, err := pr.Scope(auth.FinanceRead)
	if err != nil {
		return err
	}
	before, err := p.queueData(c, pr, readCompany, &st)
	if err != nil {
		return err
	}
	known := map[string]views.FinanceRow{}
	for _, r := range before.Rows {
		known[r.ID] = r
	}
	action := form.Get("action")
	to := map[string]string{"approve": finance.StatusApproved, "pay": finance.StatusPaid}[action]
	var ids []uuid.UUID
	for _, raw := range form["id"] {
		if id, err := uuid.Parse(raw); err == nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	status := http.StatusOK
	var problem string
	var results []finance.MoveResult
	switch {
	case to == "":
		problem, status = lang.T("finance.bulk.unknown_action"), http.StatusUnprocessableEntity
	case len(ids) == 0:
		problem, status = lang.T("finance.bulk.none_selected"), http.StatusUnprocessableEntity
	default:
		if results, err = p.svc.Finance.MoveMany(ctx, pr, company, ids, to); err != nil {
			return err
		}
	}
	d, err := p.queueData(c, pr, readCompany, &st)
	if err != nil {
		return err
	}
	d.Problem = problem
	if results != nil {
		d.Bulk, d.BulkAction = []views.BulkResult{}, action
	}
	refusedIDs := map[string]bool{}
	for _, r := range results {
		row, ok := known[r.ID.String()]
		b := views.BulkResult{Driver: row.DriverName, Date: row.Date, Amount: row.Amount, URL: row.DriverURL}
		if !ok {
			b.Driver = r.ID.String()
		}
		if r.Err == nil {
			b.OK, b.Text = true, lang.T("finance.status."+r.Transaction.Status)
		} else {
			b.Text = errorText(lang, r.Err)
			refusedIDs[r.ID.String()] = true
		}
		d.Bulk = append(d.Bulk, b)
	}
	for i := range d.Rows {
		d.Rows[i].Selected = refusedIDs[d.Rows[i].ID]
	}
	return p.render(c, status, "finance.queue.title", views.FinanceQueue(d))
}

// ---- A driver's ledger ----

// driverHeader names the driver a finance page is about (the drivers'
// guard for reading it, which every finance reader passes).
func (p *Pages) driverHeader(c echo.Context, pr auth.Principal, id uuid.UUID) (views.DriverHeader, error) {
	ctx := c.Request().Context()
	ref, err := p.svc.Drivers.Authorize(ctx, pr, auth.DriversRead, id)
	if err != nil {
		return views.DriverHeader{}, err
	}
	d, err := p.svc.Drivers.Get(ctx, pr, ref)
	if err != nil {
		return views.DriverHeader{}, err
	}
	return views.DriverHeader{ID: d.ID.String(), URL: driverURL(d.ID), Name: fullName(d), Number: d.InternalNumber}, nil
}

func (p *Pages) financeLedger(c echo.Context) error {
	pr := web.Principal(c)
	ref, err := p.svc.Finance.Authorize(c.Request().Context(), pr, auth.FinanceRead, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	st := readFinanceState(ledgerURL(ref.ID()), false, c.QueryParams())
	return p.renderLedger(c, pr, ref, st, nil, http.StatusOK, "")
}

// renderLedger shows the ledger for the state; rowErrors are refusals
// shown in their rows, problem one about the page.
func (p *Pages) renderLedger(c echo.Context, pr auth.Principal, ref finance.Ref, st financeState, rowErrors map[string]string, status int, problem string) error {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	driverID := ref.ID()
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	var problems []string
	f := st.filter()
	if len(st.bad) > 0 {
		problems = append(problems, lang.T("finance.filter.bad_value"))
	}
	list, err := p.svc.Finance.ListTransactions(ctx, pr, ref, f)
	if apperr.KindOf(err) == apperr.KindValidation {
		problems = append(problems, translatedMessages(lang, err)...)
		st.drop(translatedFields(lang, err))
		list, err = p.svc.Finance.ListTransactions(ctx, pr, ref, st.filter())
	}
	if err != nil {
		return err
	}
	if len(list.Transactions) == 0 && st.Page > 1 && rowErrors == nil {
		st.Page = max(1, (list.Total+financePerPage-1)/financePerPage)
		return p.redirect(c, st.url())
	}
	aggs, err := p.svc.Finance.Aggregates(ctx, pr, ref, finance.AggregateQuery{})
	if err != nil {
		return err
	}
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, ref, finance.PeriodFilter{})
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
	if pr.Grant(auth.FinanceWrite) != auth.Deny {
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
	for _, t := range list.Transactions {
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
	d.Pager = pagerOf(st.Page, list.Total, len(list.Transactions), func(n int) string { at := st; at.Page = n; return at.url() })
	return p.render(c, status, "finance.ledger.crumb", views.FinanceLedger(d))
}

// correctionText names the penalty a correction corrects, by its incident
// date ("Corrects the penalty of 5 Oct 2026").
func correctionText(lang i18n.Lang, t finance.Transaction) string {
	return lang.T("finance.row.correction", "date", lang.Date(*t.CorrectedIncident))
}

func withParam(u, name, value string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + name + "=" + url.QueryEscape(value)
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
		Date: lang.Date(t.TransactionDate), Type: t.TransactionType, Category: deref(t.Category),
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
	write := pr.Grant(auth.FinanceWrite) != auth.Deny
	if write {
		row.Approve = t.Status == finance.StatusPending
		row.Pay = t.Status == finance.StatusApproved
		row.Cancel = (t.Status == finance.StatusPending || t.Status == finance.StatusApproved) && t.PenaltyID == nil
		row.Edit = t.Status == finance.StatusPending || t.Status == finance.StatusApproved
	}
	if write || pr.Grant(auth.FinanceDelete) != auth.Deny {
		why := finance.DeleteAllowed(t, today)
		switch {
		case why != nil && t.Status != finance.StatusCancelled:
			row.DeleteBlocked = errorText(lang, why)
		case why == nil && pr.Grant(auth.FinanceDelete) != auth.Deny:
			row.DeleteURL = row.URL + "/delete"
		}
	}
	return row
}

// moveTransaction approves, pays or cancels one transaction from its row;
// a refusal shows in the row, in the ledger the form came from.
func (p *Pages) moveTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "transaction_id")
	back := localBack(c.FormValue("back"), ledgerURL(driverID), ledgerURL(driverID))
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.FinanceWrite, driverID, finance.TransactionRecord, id)
	if goneRecord(err) {
		return p.ledgerRefusal(c, pr, driverID, back, id.String(), err)
	}
	if err != nil {
		return err
	}
	status := strings.TrimSpace(c.FormValue("status"))
	t, err := p.svc.Finance.UpdateTransaction(ctx, pr, ref, finance.TransactionInput{Status: &status})
	if refused(err) {
		return p.ledgerRefusal(c, pr, driverID, back, id.String(), err)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.moved."+t.Status)
	return p.redirect(c, back)
}

// ledgerRefusal shows the ledger at back with the refusal in the row it
// concerns, answered with the refusal's status.
func (p *Pages) ledgerRefusal(c echo.Context, pr auth.Principal, driverID uuid.UUID, back, rowID string, refusal error) error {
	ref, err := p.svc.Finance.Authorize(c.Request().Context(), pr, auth.FinanceRead, driverID)
	if err != nil {
		return err
	}
	bu, _ := url.Parse(back)
	st := readFinanceState(ledgerURL(driverID), false, bu.Query())
	lang := i18n.From(c.Request().Context())
	return p.renderLedger(c, pr, ref, st, map[string]string{rowID: errorText(lang, refusal)}, refusalStatus(refusal), "")
}

// periodLock is the refusal (409) of any change to t when a closed or paid
// period of the driver holds it, else nil: the edit and delete pages of such
// a transaction are not offered by their address either.
func (p *Pages) periodLock(c echo.Context, pr auth.Principal, driverID uuid.UUID, t finance.Transaction) (locked, err error) {
	ctx := c.Request().Context()
	ref, err := p.svc.Finance.Authorize(ctx, pr, auth.FinanceRead, driverID)
	if err != nil {
		return nil, err
	}
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, ref, finance.PeriodFilter{Statuses: []string{finance.PeriodClosed, finance.PeriodPaid}})
	if err != nil {
		return nil, err
	}
	if lock, ok := finance.LockedBy(periods, t.TransactionDate, t.Currency); ok {
		return finance.LockedError(lock), nil
	}
	return nil, nil
}

// confirmDeleteTransaction asks before deleting (HR and admins; others
// get the 403 page, the answer the service gives their delete).
func (p *Pages) confirmDeleteTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID := web.PathID(c, "id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.FinanceDelete, driverID, finance.TransactionRecord, web.PathID(c, "transaction_id"))
	if err != nil {
		return err
	}
	t, err := p.svc.Finance.GetTransaction(ctx, pr, ref)
	if err != nil {
		return err
	}
	locked, err := p.periodLock(c, pr, driverID, t)
	if err != nil {
		return err
	}
	if locked != nil {
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), t.ID.String(), locked)
	}
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	lang := i18n.From(ctx)
	row := p.ledgerRow(lang, pr, t, pr.Today(), nil)
	if row.DeleteBlocked != "" {
		// The rules forbid it: say why in the ledger, at the row.
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), row.ID, finance.DeleteAllowed(t, pr.Today()))
	}
	return p.render(c, http.StatusOK, "finance.delete.title", views.DeleteTransaction(views.DeleteTransactionData{
		Driver: header, Row: row, Action: row.URL + "/delete", CSRF: csrfToken(c), CancelURL: ledgerURL(driverID),
	}))
}

func (p *Pages) deleteTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "transaction_id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.FinanceDelete, driverID, finance.TransactionRecord, id)
	if goneRecord(err) {
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), id.String(), err)
	}
	if err != nil {
		return err
	}
	err = p.svc.Finance.DeleteTransaction(ctx, pr, ref)
	if refused(err) {
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), id.String(), err)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.deleted")
	return p.redirect(c, ledgerURL(driverID))
}

// financeExport downloads the ledger's filtered transactions, the API's
// export on the same service (docs/finance.md, "Export").
func (p *Pages) financeExport(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	ref, err := p.svc.Finance.Authorize(ctx, pr, auth.FinanceRead, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	st := readFinanceState(ledgerURL(ref.ID()), false, c.QueryParams())
	f := st.filter()
	if len(st.bad) > 0 {
		return apperr.Invalid(st.bad[0], "msg.common.date_iso", "field", i18n.M("field.finance."+strings.TrimSuffix(st.bad[0], "_id")))
	}
	format, err := export.FormatParam(c.QueryParam("format"))
	if err != nil {
		return err
	}
	lang := i18n.From(ctx)
	name, err := p.svc.Finance.ExportName(ctx, pr, ref)
	if err != nil {
		return err
	}
	return web.Export(c, format, name, lang.T("finance.export.sheet"), func(start func() (export.Writer, error)) error {
		return p.svc.Finance.ExportTransactions(ctx, pr, ref, f, lang, start)
	})
}

// ---- The transaction form ----

func (p *Pages) transactionForm(c echo.Context, header views.DriverHeader, values map[string]string, errs map[string][]string) views.TransactionFormData {
	lang := i18n.From(c.Request().Context())
	d := views.TransactionFormData{Driver: header, CSRF: csrfToken(c), Values: values, Errors: errs, CancelURL: header.URL + "/finance"}
	for _, t := range finance.TransactionTypes {
		if t == finance.TypePenalty {
			continue // penalties are made with their penalty
		}
		d.Types = append(d.Types, views.Option{Value: t, Label: lang.T("finance.type." + t)})
	}
	return d
}

// transactionFormFields are the fields the form sends.
var transactionFormFields = []string{"transaction_type", "amount", "transaction_date", "currency", "category", "reference", "description"}

// transactionInput reads the posted form as the service's input: every
// field sent, as text (an empty text clears an optional field).
func transactionInput(c echo.Context) (finance.TransactionInput, map[string]string, error) {
	form, err := c.FormParams()
	if err != nil {
		return finance.TransactionInput{}, nil, apperr.BadRequest("msg.common.form_unreadable")
	}
	values := map[string]string{}
	var in finance.TransactionInput
	for _, name := range transactionFormFields {
		sent, ok := form[name]
		if !ok || len(sent) == 0 {
			continue
		}
		v := sent[len(sent)-1]
		values[name] = v
		s := v
		switch name {
		case "transaction_type":
			in.TransactionType = &s
		case "amount":
			in.Amount = money.TextInput(formAmount(s))
		case "transaction_date":
			in.TransactionDate = &s
		case "currency":
			in.Currency = &s
		case "category":
			in.Category = &s
		case "reference":
			in.Reference = &s
		case "description":
			in.Description = &s
		}
	}
	return in, values, nil
}

// formRefusal turns a refused save into the form's messages: field
// messages at their fields, any other refusal (a closed period, a status
// that forbids the change) above the form.
func formRefusal(lang i18n.Lang, err error) map[string][]string {
	if apperr.KindOf(err) == apperr.KindValidation {
		return translatedFields(lang, err)
	}
	return map[string][]string{"": {errorText(lang, err)}}
}

// transactionAnswer answers a refused save: the form alone for htmx (it
// swaps the form), the whole page otherwise, with the refusal's status.
func (p *Pages) transactionAnswer(c echo.Context, status int, d views.TransactionFormData) error {
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "transaction-form" {
		return p.fragment(c, status, views.TransactionForm(d))
	}
	title := "finance.edit.crumb"
	if d.Creating {
		title = "finance.new"
	}
	return p.render(c, status, title, views.TransactionFormPage(d))
}

func (p *Pages) newTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ref, err := p.svc.Finance.Authorize(c.Request().Context(), pr, auth.FinanceWrite, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	header, err := p.driverHeader(c, pr, ref.ID())
	if err != nil {
		return err
	}
	d := p.transactionForm(c, header, map[string]string{
		"transaction_date": pr.Today().String(), "currency": pr.CompanyCurrency,
	}, nil)
	d.Creating, d.Action, d.Token = true, ledgerURL(ref.ID())+"/new", forms.NewToken()
	return p.render(c, http.StatusOK, "finance.new", views.TransactionFormPage(d))
}

// createTransaction records a transaction from the form. The form's
// one-time token is claimed first: a second submission of the same form
// creates nothing and goes where the first went (docs/web-app.md,
// "Sending a form twice").
func (p *Pages) createTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	ref, err := p.svc.Finance.Authorize(ctx, pr, auth.FinanceWrite, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	in, values, err := transactionInput(c)
	if err != nil {
		return err
	}
	token := c.FormValue("form_token")
	claim, err := p.svc.Forms.Claim(ctx, pr, token)
	if err != nil {
		return err
	}
	if !claim.Fresh {
		p.flash(c, views.FlashInfo, "finance.flash.already_saved")
		return p.redirect(c, claim.Done)
	}
	_, err = p.svc.Finance.CreateTransaction(ctx, pr, ref, in)
	if err != nil {
		if rerr := p.svc.Forms.Release(ctx, pr, claim); rerr != nil {
			return rerr
		}
	}
	if refused(err) {
		header, herr := p.driverHeader(c, pr, ref.ID())
		if herr != nil {
			return herr
		}
		d := p.transactionForm(c, header, values, formRefusal(i18n.From(ctx), err))
		d.Creating, d.Action, d.Token = true, ledgerURL(ref.ID())+"/new", token
		return p.transactionAnswer(c, refusalStatus(err), d)
	}
	if err != nil {
		return err
	}
	to := ledgerURL(ref.ID())
	if err := p.svc.Forms.Finish(ctx, pr, claim, to); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.created")
	return p.redirect(c, to)
}

func transactionValues(t finance.Transaction) map[string]string {
	return map[string]string{
		"transaction_type": t.TransactionType, "amount": t.Amount.Decimal().StringFixed(2),
		"transaction_date": t.TransactionDate.String(), "currency": t.Currency, "category": deref(t.Category),
		"reference": deref(t.Reference), "description": deref(t.Description),
	}
}

func (p *Pages) editTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID := web.PathID(c, "id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.FinanceWrite, driverID, finance.TransactionRecord, web.PathID(c, "transaction_id"))
	if err != nil {
		return err
	}
	t, err := p.svc.Finance.GetTransaction(ctx, pr, ref)
	if err != nil {
		return err
	}
	locked, err := p.periodLock(c, pr, driverID, t)
	if err != nil {
		return err
	}
	if locked != nil {
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), t.ID.String(), locked)
	}
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	d := p.transactionForm(c, header, transactionValues(t), nil)
	d.Action, d.Locked = ledgerURL(driverID)+"/"+t.ID.String()+"/edit", t.Status != finance.StatusPending
	return p.render(c, http.StatusOK, "finance.edit.crumb", views.TransactionFormPage(d))
}

// updateTransaction saves the edit form: the fields it sent, as a partial
// update (an approved transaction's locked fields are not sent).
func (p *Pages) updateTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID := web.PathID(c, "id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.FinanceWrite, driverID, finance.TransactionRecord, web.PathID(c, "transaction_id"))
	if err != nil {
		return err
	}
	in, values, err := transactionInput(c)
	if err != nil {
		return err
	}
	t, err := p.svc.Finance.UpdateTransaction(ctx, pr, ref, in)
	if refused(err) {
		cur, gerr := p.svc.Finance.GetTransaction(ctx, pr, ref)
		if gerr != nil {
			return gerr
		}
		header, herr := p.driverHeader(c, pr, driverID)
		if herr != nil {
			return herr
		}
		all := transactionValues(cur)
		for k, v := range values {
			all[k] = v
		}
		d := p.transactionForm(c, header, all, formRefusal(i18n.From(ctx), err))
		d.Action, d.Locked = ledgerURL(driverID)+"/"+cur.ID.String()+"/edit", cur.Status != finance.StatusPending
		return p.transactionAnswer(c, refusalStatus(err), d)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.updated")
	return p.redirect(c, ledgerURL(t.DriverID))
}

// ---- Pay periods ----

func (p *Pages) financePeriods(c echo.Context) error {
	pr := web.Principal(c)
	ref, err := p.svc.Finance.Authorize(c.Request().Context(), pr, auth.FinanceRead, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return p.renderPeriods(c, pr, ref, periodsAnswer{}, http.StatusOK)
}

// periodsAnswer is what the periods page shows after a refused action:
// the refusal in the period's row, and the reason a refused reopen sent.
type periodsAnswer struct {
	id, refusal, reason string
}

func (p *Pages) renderPeriods(c echo.Context, pr auth.Principal, ref finance.Ref, ans periodsAnswer, status int) error {
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	driverID := ref.ID()
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, ref, finance.PeriodFilter{})
	if err != nil {
		return err
	}
	base := ledgerURL(driverID)
	d := views.PeriodsData{Driver: header, LedgerURL: base, CSRF: csrfToken(c)}
	manage := pr.Grant(auth.PeriodsManage) != auth.Deny
	reopen := pr.Grant(auth.PeriodsReopen) != auth.Deny
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
	readRef, err := p.svc.Finance.Authorize(c.Request().Context(), pr, auth.FinanceRead, driverID)
	if err != nil {
		return err
	}
	ans := periodsAnswer{id: rowID, refusal: errorText(i18n.From(c.Request().Context()), refusal), reason: reason}
	return p.renderPeriods(c, pr, readRef, ans, refusalStatus(refusal))
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
	_, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.PeriodsManage, driverID, finance.PeriodRecord, id)
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
	ref, err := p.svc.Finance.Authorize(ctx, pr, auth.FinanceRead, driverID)
	if err != nil {
		return err
	}
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, ref, finance.PeriodFilter{})
	if err != nil {
		return err
	}
	i := slices.IndexFunc(periods, func(per finance.Period) bool { return per.ID == id })
	if i < 0 || periods[i].Status != finance.PeriodOpen || !finance.Closable(periods[i], pr.Today()) {
		return p.redirect(c, periodsURL(driverID))
	}
	per := periods[i]
	pending := []string{finance.StatusPending, finance.StatusDisputed}
	list, err := p.svc.Finance.ListTransactions(ctx, pr, ref, finance.TransactionFilter{PeriodID: &id, Statuses: pending, Page: 1, PerPage: closePendingRows})
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
	for _, t := range list.Transactions {
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
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "period_id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.PeriodsManage, driverID, finance.PeriodRecord, id)
	if goneRecord(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if err != nil {
		return err
	}
	_, err = p.svc.Finance.ClosePeriod(ctx, pr, ref, finance.ClosePeriodInput{Force: c.FormValue("force") == "true"})
	if finance.PendingOf(err) != nil {
		return p.renderCloseConfirm(c, pr, driverID, id, errorText(i18n.From(ctx), err), refusalStatus(err))
	}
	if refused(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.period_close")
	return p.redirect(c, periodsURL(driverID))
}

// reopenPeriod reopens a closed period with the reason from its row; a
// refusal (no reason, a paid period) shows in the row with the reason sent.
func (p *Pages) reopenPeriod(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "period_id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.PeriodsReopen, driverID, finance.PeriodRecord, id)
	if goneRecord(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if err != nil {
		return err
	}
	reason := c.FormValue("reason")
	_, err = p.svc.Finance.ReopenPeriod(ctx, pr, ref, finance.ReopenInput{Reason: &reason})
	if refused(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, reason)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.reopen.done")
	return p.redirect(c, periodsURL(driverID))
}

// payPeriod marks a closed period paid from its row; a refusal shows in
// the row.
func (p *Pages) payPeriod(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "period_id")
	ref, err := p.svc.Finance.AuthorizeRecord(ctx, pr, auth.PeriodsManage, driverID, finance.PeriodRecord, id)
	if goneRecord(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if err != nil {
		return err
	}
	_, err = p.svc.Finance.PayPeriod(ctx, pr, ref, nil)
	if refused(err) {
		return p.periodsRefusal(c, pr, driverID, id.String(), err, "")
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.period_pay")
	return p.redirect(c, periodsURL(driverID))
}

// formAmount reads an amount as people type it in either language:
// spaces (also no-break ones) between thousands dropped, a decimal comma
// taken as a point ("1 250,50" is 1250.50).
func formAmount(s string) string {
	s = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "").Replace(strings.TrimSpace(s))
	if !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	return s
}
