package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountFinance(g *web.Routes) {
	g.GET("/drivers/:id/finance", h.listTransactions)
	g.POST("/drivers/:id/finance", h.createTransaction)
	g.PUT("/drivers/:id/finance/:transaction_id", h.updateTransaction)
	g.DELETE("/drivers/:id/finance/:transaction_id", h.deleteTransaction)
	g.GET("/drivers/:id/finance/periods", h.listPeriods)
	g.POST("/drivers/:id/finance/periods/:period_id/close", h.closePeriod)
	g.POST("/drivers/:id/finance/periods/:period_id/reopen", h.reopenPeriod)
	g.POST("/drivers/:id/finance/periods/:period_id/pay", h.payPeriod)
	g.GET("/drivers/:id/finance/aggregates", h.financeAggregates)
	g.GET("/drivers/:id/finance/export", h.exportTransactions)
}

func (h *Handlers) listTransactions(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	q := query{c: c}
	r := q.pageRequest(offsetSize)
	f := transactionFilter(&q)
	f.Page = r
	fp := feedParams(&q)
	if perr := q.err(); perr != nil || fp.On() {
		// The feed, or a query that does not parse: the driver's 403 and
		// 404 come before the query's 400.
		page, err := h.Finance.FeedTransactions(ctx, p, web.PathID(c, "id"), f, fp, perr)
		if err != nil {
			return err
		}
		return writeList(c, page)
	}
	list, err := h.Finance.Read(ctx, p, web.PathID(c, "id"), f)
	if err != nil {
		return err
	}
	// The summaries are of the whole filtered set.
	return writeList(c, list.Page, with("summary", list.Summary), with("summaries", list.Summaries))
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
	pr := web.Principal(c)
	lang := callerLang(c, pr)
	var format export.Format
	read := func(f *finance.TransactionFilter) error {
		q := query{c: c}
		*f = transactionFilter(&q)
		if err := q.err(); err != nil {
			return err
		}
		var err error
		format, err = export.FormatParam(q.str("format"))
		return err
	}
	return h.Finance.ExportTransactions(c.Request().Context(), pr, web.PathID(c, "id"), read, lang, func(name string) (export.Writer, error) {
		return startExport(c, format, name, lang.T("finance.export.sheet"))
	})
}

// startExport commits the response to a download of a table named name
// (web.Export) and returns its writer.
func startExport(c echo.Context, format export.Format, name, sheet string) (export.Writer, error) {
	var w export.Writer
	err := web.Export(c, format, name, sheet, func(start func() (export.Writer, error)) error {
		var err error
		w, err = start()
		return err
	})
	return w, err
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
	t, err := h.Finance.CreateTransaction(c.Request().Context(), web.Principal(c), web.PathID(c, "id"),
		func(in *finance.TransactionInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t)
}

func (h *Handlers) updateTransaction(c echo.Context) error {
	t, err := h.Finance.UpdateTransaction(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "transaction_id"),
		func(in *finance.TransactionInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (h *Handlers) deleteTransaction(c echo.Context) error {
	if err := h.Finance.DeleteTransaction(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "transaction_id")); err != nil {
		return err
	}
	return noContent(c)
}

func (h *Handlers) listPeriods(c echo.Context) error {
	periods, err := h.Finance.ListPeriods(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), func(f *finance.PeriodFilter) error {
		q := query{c: c}
		*f = finance.PeriodFilter{Types: q.list("period_type"), Statuses: q.list("status")}
		if q.str("year") != "" {
			y := q.intParam("year", 0)
			f.Year = &y
		}
		return q.err()
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": periods})
}

func (h *Handlers) closePeriod(c echo.Context) error {
	// An empty body: no force.
	p, err := h.Finance.ClosePeriod(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "period_id"),
		func(in *finance.ClosePeriodInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) reopenPeriod(c echo.Context) error {
	p, err := h.Finance.ReopenPeriod(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "period_id"),
		func(in *finance.ReopenInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) payPeriod(c echo.Context) error {
	p, err := h.Finance.PayPeriod(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "period_id"),
		func(in *finance.PayPeriodInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) financeAggregates(c echo.Context) error {
	aggs, err := h.Finance.Aggregates(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), func(aq *finance.AggregateQuery) error {
		q := query{c: c}
		*aq = finance.AggregateQuery{
			Types:         q.list("type"),
			ReferenceDate: q.civilDate("reference_date"),
			Currency:      q.str("currency"),
		}
		return q.err()
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, aggs)
}
