package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountFinance(g *web.Routes) {
	one := g.OneRecord()
	one.GET("/drivers/:id/finance", h.listTransactions)
	g.POST("/drivers/:id/finance", h.createTransaction)
	g.PUT("/drivers/:id/finance/:transaction_id", h.updateTransaction)
	g.DELETE("/drivers/:id/finance/:transaction_id", h.deleteTransaction)
	one.GET("/drivers/:id/finance/periods", h.listPeriods)
	g.POST("/drivers/:id/finance/periods/:period_id/close", h.closePeriod)
	g.POST("/drivers/:id/finance/periods/:period_id/reopen", h.reopenPeriod)
	g.POST("/drivers/:id/finance/periods/:period_id/pay", h.payPeriod)
	one.GET("/drivers/:id/finance/aggregates", h.financeAggregates)
	g.GET("/drivers/:id/finance/export", h.exportTransactions)
}

// financeGuard runs the finance guard for the path's driver (path id "id").
func (h *Handlers) financeGuard(c echo.Context, a auth.Action) (finance.Ref, error) {
	return h.Finance.Authorize(c.Request().Context(), web.Principal(c), a, web.PathID(c, "id"))
}

// financeRecordGuard runs the finance guard for one record of the path's
// driver, named by the path id param.
func (h *Handlers) financeRecordGuard(c echo.Context, a auth.Action, kind finance.Record, param string) (finance.Ref, error) {
	return h.Finance.AuthorizeRecord(c.Request().Context(), web.Principal(c), a, web.PathID(c, "id"), kind, web.PathID(c, param))
}

// financeFeed answers a list of the path's driver's finance records whose
// query failed to parse (perr) or asks for the change feed: the plain guard
// runs first, so that its 403 and 404 come before a parameter's 400, then
// the 400 or the feed's page (read). A list read otherwise sends its guard
// with its statements in one round trip (docs/performance.md, "One round
// trip for a guarded read").
func financeFeed[T any](h *Handlers, c echo.Context, a auth.Action, perr error, read func(finance.Ref) (feed.Page[T], error)) error {
	ref, err := h.financeGuard(c, a)
	if err != nil {
		return err
	}
	if perr != nil {
		return perr
	}
	page, err := read(ref)
	if err != nil {
		return err
	}
	return feedJSON(c, page)
}

// transactionPage is the list envelope with the summaries of the whole
// filtered set.
type transactionPage struct {
	Page[finance.Transaction]
	Summary   finance.Summary   `json:"summary"`
	Summaries []finance.Summary `json:"summaries"`
}

func (h *Handlers) listTransactions(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	q := query{c: c}
	page, perPage := q.page(100)
	f := transactionFilter(&q)
	f.Page, f.PerPage = page, perPage
	fp := feedParams(&q)
	if perr := q.err(); perr != nil || fp.On() {
		return financeFeed(h, c, auth.FinanceRead, perr, func(ref finance.Ref) (feed.Page[finance.Transaction], error) {
			return h.Finance.FeedTransactions(ctx, p, ref, f, fp)
		})
	}
	list, err := h.Finance.Read(ctx, p, web.PathID(c, "id"), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, transactionPage{
		Page:      NewPage(c, list.Transactions, list.Total, page, perPage),
		Summary:   list.Summary,
		Summaries: list.Summaries,
	})
}

// transactionFilter reads the transaction list's filters.
func transactionFilter(q *query) finance.TransactionFilter {
	return finance.TransactionFilter{
		Types:    q.list("type"),
		Statuses: q.list("status"),
		From:     q.civilDate("from_date"),
		To:       q.civilDate("to_date"),
		PeriodID: q.uuid("period_id"),
		Currency: q.str("currency"),
	}
}

// exportTransactions streams the filtered transactions as CSV or XLSX
// (docs/finance.md, "Export"): the list's filters and permission, column
// headers in the caller's language.
func (h *Handlers) exportTransactions(c echo.Context) error {
	ref, err := h.financeGuard(c, auth.FinanceRead)
	if err != nil {
		return err
	}
	q := query{c: c}
	f := transactionFilter(&q)
	if err := q.err(); err != nil {
		return err
	}
	format, err := export.FormatParam(q.str("format"))
	if err != nil {
		return err
	}
	pr := web.Principal(c)
	lang := callerLang(c, pr)
	name, err := h.Finance.ExportName(c.Request().Context(), pr, ref)
	if err != nil {
		return err
	}
	return web.Export(c, format, name, lang.T("finance.export.sheet"), func(start func() (export.Writer, error)) error {
		return h.Finance.ExportTransactions(c.Request().Context(), pr, ref, f, lang, start)
	})
}

// callerLang is the language of texts an API answer carries (export
// headers): the request's Accept-Language when Konvoj speaks it, else the
// user's preferred language or the company's.
func callerLang(c echo.Context, pr auth.Principal) i18n.Lang {
	if l, ok := i18n.FromAcceptLanguage(c.Request().Header.Get("Accept-Language")); ok {
		return l
	}
	if l, ok := i18n.Parse(pr.Language); ok {
		return l
	}
	return i18n.Default
}

func (h *Handlers) createTransaction(c echo.Context) error {
	ref, err := h.financeGuard(c, auth.FinanceWrite)
	if err != nil {
		return err
	}
	var in finance.TransactionInput
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	t, err := h.Finance.CreateTransaction(c.Request().Context(), web.Principal(c), ref, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t)
}

func (h *Handlers) updateTransaction(c echo.Context) error {
	ref, err := h.financeRecordGuard(c, auth.FinanceWrite, finance.TransactionRecord, "transaction_id")
	if err != nil {
		return err
	}
	var in finance.TransactionInput
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	t, err := h.Finance.UpdateTransaction(c.Request().Context(), web.Principal(c), ref, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (h *Handlers) deleteTransaction(c echo.Context) error {
	ref, err := h.financeRecordGuard(c, auth.FinanceDelete, finance.TransactionRecord, "transaction_id")
	if err != nil {
		return err
	}
	if err := h.Finance.DeleteTransaction(c.Request().Context(), web.Principal(c), ref); err != nil {
		return err
	}
	return noContent(c)
}

func (h *Handlers) listPeriods(c echo.Context) error {
	ref, err := h.financeGuard(c, auth.FinanceRead)
	if err != nil {
		return err
	}
	q := query{c: c}
	f := finance.PeriodFilter{Types: q.list("period_type"), Statuses: q.list("status")}
	if q.str("year") != "" {
		y := q.intParam("year", 0)
		f.Year = &y
	}
	if err := q.err(); err != nil {
		return err
	}
	periods, err := h.Finance.ListPeriods(c.Request().Context(), web.Principal(c), ref, f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": periods})
}

func (h *Handlers) closePeriod(c echo.Context) error {
	ref, err := h.financeRecordGuard(c, auth.PeriodsManage, finance.PeriodRecord, "period_id")
	if err != nil {
		return err
	}
	var in finance.ClosePeriodInput // an empty body: no force
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	p, err := h.Finance.ClosePeriod(c.Request().Context(), web.Principal(c), ref, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) reopenPeriod(c echo.Context) error {
	ref, err := h.financeRecordGuard(c, auth.PeriodsReopen, finance.PeriodRecord, "period_id")
	if err != nil {
		return err
	}
	var in finance.ReopenInput
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	p, err := h.Finance.ReopenPeriod(c.Request().Context(), web.Principal(c), ref, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) payPeriod(c echo.Context) error {
	ref, err := h.financeRecordGuard(c, auth.PeriodsManage, finance.PeriodRecord, "period_id")
	if err != nil {
		return err
	}
	var body struct {
		PaymentDate *string `json:"payment_date"`
	}
	if err := bindJSON(c, &body); err != nil {
		return err
	}
	p, err := h.Finance.PayPeriod(c.Request().Context(), web.Principal(c), ref, body.PaymentDate)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) financeAggregates(c echo.Context) error {
	ref, err := h.financeGuard(c, auth.FinanceRead)
	if err != nil {
		return err
	}
	q := query{c: c}
	aq := finance.AggregateQuery{
		Types:         q.list("type"),
		ReferenceDate: q.civilDate("reference_date"),
		Currency:      q.str("currency"),
	}
	if err := q.err(); err != nil {
		return err
	}
	aggs, err := h.Finance.Aggregates(c.Request().Context(), web.Principal(c), ref, aq)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, aggs)
}
