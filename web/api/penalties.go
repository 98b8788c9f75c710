package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountPenalties(g *web.Routes) {
	g.GET("/drivers/:id/penalties", h.listPenalties)
	g.POST("/drivers/:id/penalties", h.createPenalty)
	g.GET("/drivers/:id/penalties/:penalty_id", h.getPenalty)
	g.PUT("/drivers/:id/penalties/:penalty_id/dispute", h.disputePenalty)
	g.PUT("/drivers/:id/penalties/:penalty_id/resolve", h.resolvePenalty)
	g.PUT("/drivers/:id/penalties/:penalty_id/accept", h.acceptPenalty)
}

// disputeResponse is the disputed penalty with the message about HR review.
type disputeResponse struct {
	finance.Penalty
	Message string `json:"message"`
}

func (h *Handlers) listPenalties(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	q := query{c: c}
	f := finance.PenaltyFilter{
		Types:      q.list("type"),
		Statuses:   q.list("status"),
		Severities: q.list("severity"),
		Page:       q.pageRequest(offsetSize),
	}
	fp := feedParams(&q)
	if perr := q.err(); perr != nil || fp.On() {
		// The feed, or a query that does not parse: the driver's 403 and
		// 404 come before the query's 400.
		page, err := h.Finance.FeedPenalties(ctx, p, web.PathID(c, "id"), f, fp, perr)
		if err != nil {
			return err
		}
		return writeList(c, page)
	}
	list, err := h.Finance.ReadPenalties(ctx, p, web.PathID(c, "id"), f)
	if err != nil {
		return err
	}
	// The summary and totals are of the whole filtered set.
	return writeList(c, list.Page, with("summary", list.Summary), with("totals", list.Totals))
}

func (h *Handlers) createPenalty(c echo.Context) error {
	p, err := h.Finance.CreatePenalty(c.Request().Context(), web.Principal(c), web.PathID(c, "id"),
		func(in *finance.PenaltyInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, p)
}

func (h *Handlers) getPenalty(c echo.Context) error {
	p, err := h.Finance.GetPenalty(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "penalty_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) disputePenalty(c echo.Context) error {
	p, err := h.Finance.DisputePenalty(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "penalty_id"),
		func(in *finance.DisputeInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, disputeResponse{Penalty: p, Message: finance.DisputeMessage})
}

func (h *Handlers) resolvePenalty(c echo.Context) error {
	p, err := h.Finance.ResolvePenalty(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "penalty_id"),
		func(in *finance.ResolveInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}

func (h *Handlers) acceptPenalty(c echo.Context) error {
	p, err := h.Finance.AcceptPenalty(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "penalty_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p)
}
