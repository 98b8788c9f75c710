// The approval queue (/finance): every driver's transactions, its filters
// and the bulk approve or mark-paid of the selected ones.

package pages

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

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
	own, err := p.svc.Finance.OwnLedger(pr)
	if err != nil {
		return err
	}
	if own != nil { // a driver has no company list: its own ledger
		return p.redirect(c, ledgerURL(*own))
	}
	st := readFinanceState("/finance", true, c.QueryParams())
	d, err := p.queueData(c, pr, &st)
	if err != nil {
		return err
	}
	if len(d.Rows) == 0 && st.Page > 1 {
		st.Page = d.Pager.LastPage
		return p.redirect(c, st.url())
	}
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == views.FinanceQueueID {
		// A transaction changed (static/live.js): the rows alone.
		return p.fragment(c, http.StatusOK, views.FinanceQueueRows(d))
	}
	return p.render(c, http.StatusOK, "finance.queue.title", views.FinanceQueue(d))
}

// queueData lists the queue for the state; refused filters are named and
// left out.
func (p *Pages) queueData(c echo.Context, pr auth.Principal, st *financeState) (views.QueueData, error) {
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
	list, err := p.svc.Finance.ListCompanyTransactions(ctx, pr, f)
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		problems = append(problems, r.messages()...)
		st.drop(r.fields)
		f.TransactionFilter = st.filter()
		f.SortBy, f.SortOrder = st.SortBy, st.SortOrder
		list, err = p.svc.Finance.ListCompanyTransactions(ctx, pr, f)
	}
	if err != nil {
		return views.QueueData{}, err
	}
	d := views.QueueData{
		Filters: st.filterForm(lang, "/finance"), Summary: summaryView(lang, list.Summary, list.Summaries),
		CanWrite: shows(pr, auth.FinanceWrite), CSRF: csrfToken(c), Back: st.url(),
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
	for _, r := range list.Items {
		d.Rows = append(d.Rows, views.FinanceRow{
			ID: r.ID.String(), URL: ledgerURL(r.DriverID) + "/" + r.ID.String(),
			DriverName: r.DriverName, DriverNumber: r.DriverNumber, DriverURL: ledgerURL(r.DriverID),
			Date: lang.Date(r.TransactionDate), Type: r.TransactionType, Description: deref(r.Description),
			Amount: amountView(lang, r.Amount, r.Currency), Status: r.Status,
		})
	}
	d.Pager = pager(list.Page, func(n int) string { at := *st; at.Page = n; return at.url() })
	return d, nil
}

// driversNamed finds the drivers a name or number search matches (as the
// drivers list searches: accent-insensitive), at most 100.
func (p *Pages) driversNamed(c echo.Context, pr auth.Principal, search string) ([]uuid.UUID, error) {
	res, err := p.svc.Drivers.List(c.Request().Context(), pr, listParams(drivers.ListParams{Search: search, Page: paging.Request{Number: 1, Size: 100}}))
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
	if err := p.svc.Finance.MayMoveMany(pr); err != nil {
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
	before, err := p.queueData(c, pr, &st)
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
		if results, err = p.svc.Finance.MoveMany(ctx, pr, ids, to); err != nil {
			return err
		}
	}
	d, err := p.queueData(c, pr, &st)
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
			b.Text = refusalText(lang, r.Err)
			refusedIDs[r.ID.String()] = true
		}
		d.Bulk = append(d.Bulk, b)
	}
	for i := range d.Rows {
		d.Rows[i].Selected = refusedIDs[d.Rows[i].ID]
	}
	return p.render(c, status, "finance.queue.title", views.FinanceQueue(d))
}
