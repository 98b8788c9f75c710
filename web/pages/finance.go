// The finance pages: their routes, and the helpers the queue, the ledger,
// the transaction pages and the periods share (some also other pages).

package pages

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/paging"
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
	f := finance.TransactionFilter{Types: s.Types, Statuses: s.Statuses, Currency: s.Currency, Page: paging.Request{Number: s.Page, Size: financePerPage}}
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

// goneRecord reports whether an access check refused because the record (not the
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

// driverHeader names the driver a finance page is about (the drivers'
// access check for reading it, which every finance reader passes).
func (p *Pages) driverHeader(c echo.Context, pr auth.Principal, id uuid.UUID) (views.DriverHeader, error) {
	ctx := c.Request().Context()
	d, err := p.svc.Drivers.Read(ctx, pr, id)
	if err != nil {
		return views.DriverHeader{}, err
	}
	return views.DriverHeader{ID: d.ID.String(), URL: driverURL(d.ID), Name: fullName(d), Number: d.InternalNumber}, nil
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

// periodLock is the refusal (409) of any change to t when a closed or paid
// period of the driver holds it, else nil: the edit and delete pages of such
// a transaction are not offered by their address either.
func (p *Pages) periodLock(c echo.Context, pr auth.Principal, driverID uuid.UUID, t finance.Transaction) (locked, err error) {
	ctx := c.Request().Context()
	periods, err := p.svc.Finance.ListPeriods(ctx, pr, driverID, finance.Given(finance.PeriodFilter{Statuses: []string{finance.PeriodClosed, finance.PeriodPaid}}))
	if err != nil {
		return nil, err
	}
	if lock, ok := finance.LockedBy(periods, t.TransactionDate, t.Currency); ok {
		return finance.LockedError(lock), nil
	}
	return nil, nil
}
