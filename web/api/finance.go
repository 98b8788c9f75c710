package api

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountFinance(g *web.Routes) {
	g.GET("/drivers/:id/finance", h.listTransactions)
	g.POST("/drivers/:id/finance", h.createTransaction)
	g.PUT("/drivers/:id/finance/:transaction_id", h.updateTransaction)
	g.DELETE("/drivers/:id/finance/:transaction_id", h.deleteTransaction)
	g.GET("/drivers/:id/finance/periods", h.listPeriods)
	g.POST("/drivers/:id/finance/periods/:period_id/close", h.closePeriod)
	g.POST("/drivers/:id/finance/periods/:period_id/pay", h.payPeriod)
	g.GET("/drivers/:id/finance/aggregates", h.financeAggregates)
}

// anyID reads a UUID path parameter; a value that is not a UUID becomes the
// nil UUID, which names no record, so the service answers 404 after it has
// checked the role (docs/errors.md: 403 Forbidden comes before 404).
func anyID(c echo.Context, name string) uuid.UUID {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil
	}
	return id
}

// transactionPage is the list envelope with the summaries of the whole
// filtered set.
type transactionPage struct {
	Page[finance.Transaction]
	Summary   finance.Summary   `json:"summary"`
	Summaries []finance.Summary `json:"summaries"`
}

func (h *Handlers) listTransactions(c echo.Context) error {
	driverID := anyID(c, "id")
	q := query{c: c}
	page, perPage := q.page(100)
	f := finance.TransactionFilter{
		Types:    q.list("type"),
		Statuses: q.list("status"),
		From:     q.civilDate("from_date"),
		To:       q.civilDate("to_date"),
		PeriodID: q.uuid("period_id"),
		Currency: q.str("currency"),
		Page:     page,
		PerPage:  perPage,
	}
	if err := q.err(); err != nil {
		return h.Finance.InputError(c.Request().Context(), web.Principal(c), finance.OpListTransactions, driverID, uuid.Nil, err)
	}
	list, err := h.Finance.ListTransactions(c.Request().Context(), web.Principal(c), driverID, f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, transactionPage{
		Page:      NewPage(c, list.Transactions, list.Total, page, perPage),
		Summary:   list.Summary,
		Summaries: list.Summaries,
	})
}

func (h *Handlers) createTransaction(c echo.Context) error {
	driverID := anyID(c, "id")
	var in finance.TransactionInput
	if err := bindJSON(c, &in); err != nil {
		return h.Finance.InputError(c.Request().Context(), web.Principal(c), finance.OpCreateTransaction, driverID, uuid.Nil, err)
	}
	t, err := h.Finance.CreateTransaction(c.Request().Context(), web.Principal(c), driverID, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t)
}

func (h *Handlers) updateTransaction(c echo.Context) error {
	driverID := anyID(c, "id")
	id := anyID(c, "transaction_id")
	var in finance.TransactionInput
	if err := bindJSON(c, &in); err != nil {
		return h.Finance.InputError(c.Request().Context(), web.Principal(c), finance.OpUpdateTransaction, driverID, id, err)
	}
	t, err := h.Finance.UpdateTransaction(c.Request().Context(), web.Principal(c), driverID, id, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (h *Handlers) deleteTransaction(c echo.Context) error {
	driverID := anyID(c, "id")
	id := anyID(c, "transaction_id")
	if err := h.Finance.DeleteTransaction(c.Request().Context(), web.Principal(c), driverID, id); err != nil {
		return err
	}
	return noContent(c)
}

func (h *Handlers) listPeriods(c echo.Context) error {
	driverID := anyID(c, "id")
	q := query{c: c}
	f := finance.PeriodFilter{Types: q.list("period_type"), Statuses: q.list("status")}
	if q.str("year") != "" {
		y := q.intParam("year", 0)
		f.Year = &y
	}
	if err := q.err(); err != nil {
		return h.Finance.InputError(c.Request().Context(), web.Principal(c), finance.OpListPeriods, driverID, uuid.Nil, err)
	}
	periods, err := h.Finance.ListPeriods(c.Request().Context(), web.Principal(c), driverID, f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": periods})
}

func (h *Handlers) closePeriod(c echo.Context) error {
	driverID := anyID(c, "id")
	id := anyID(c, "period_id")
	p, err := h.Finance.ClosePeriod(c.Request().Context(), web.Principal(c), driverID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) payPeriod(c echo.Context) error {
	driverID := anyID(c, "id")
	id := anyID(c, "period_id")
	var body struct {
		PaymentDate *string `json:"payment_date"`
	}
	if err := bindJSON(c, &body); err != nil {
		return h.Finance.InputError(c.Request().Context(), web.Principal(c), finance.OpPayPeriod, driverID, id, err)
	}
	p, err := h.Finance.PayPeriod(c.Request().Context(), web.Principal(c), driverID, id, body.PaymentDate)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) financeAggregates(c echo.Context) error {
	driverID := anyID(c, "id")
	q := query{c: c}
	aq := finance.AggregateQuery{
		Types:         q.list("type"),
		ReferenceDate: q.civilDate("reference_date"),
		Currency:      q.str("currency"),
	}
	if err := q.err(); err != nil {
		return h.Finance.InputError(c.Request().Context(), web.Principal(c), finance.OpAggregates, driverID, uuid.Nil, err)
	}
	aggs, err := h.Finance.Aggregates(c.Request().Context(), web.Principal(c), driverID, aq)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, aggs)
}
