package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountRating(g *web.Routes) {
	g.GET("/drivers/:id/rating", h.getRating)
	g.GET("/drivers/:id/rating/history", h.getRatingHistory)
	g.POST("/drivers/:id/rating/calculate", h.recalculateRating)
	g.GET("/ratings", h.listRatings)
	g.GET("/companies/:company_id/rating-config", h.getRatingConfig)
	g.PUT("/companies/:company_id/rating-config", h.updateRatingConfig)
}

func (h *Handlers) getRating(c echo.Context) error {
	id := anyID(c, "id")
	q := query{c: c}
	period := q.month("period")
	// A bad period is reported after the role and driver checks.
	r, err := h.Rating.Get(c.Request().Context(), web.Principal(c), id, period, q.err())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

// ratingHistoryPage is the history page envelope with its summary.
type ratingHistoryPage struct {
	Page[rating.HistoryItem]
	Summary rating.HistorySummary `json:"summary"`
}

func (h *Handlers) getRatingHistory(c echo.Context) error {
	id := anyID(c, "id")
	q := query{c: c}
	page, perPage := q.page(24)
	if q.str("per_page") == "" {
		perPage = 12
	}
	from, to := q.civilDate("from"), q.civilDate("to")
	// A bad page or date value is reported after the role and driver checks.
	f := rating.HistoryFilter{From: from, To: to, Page: page, PerPage: perPage, Malformed: q.err()}
	hist, err := h.Rating.History(c.Request().Context(), web.Principal(c), id, f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ratingHistoryPage{
		Page:    NewPage(c, hist.Items, hist.Total, page, perPage),
		Summary: hist.Summary,
	})
}

func (h *Handlers) recalculateRating(c echo.Context) error {
	id := anyID(c, "id")
	var in rating.RecalculateInput
	bodyErr := bindJSON(c, &in)
	r, err := h.Rating.Recalculate(c.Request().Context(), web.Principal(c), id, in, bodyErr)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *Handlers) listRatings(c echo.Context) error {
	q := query{c: c}
	page, perPage := q.page(100)
	period := q.month("period")
	if err := q.err(); err != nil {
		return err
	}
	f := rating.RankingFilter{
		Period: period, SortBy: q.str("sort_by"), SortOrder: q.str("sort_order"),
		Page: page, PerPage: perPage,
	}
	rows, total, err := h.Rating.Ranking(c.Request().Context(), web.Principal(c), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, NewPage(c, rows, total, page, perPage))
}

func (h *Handlers) getRatingConfig(c echo.Context) error {
	id := anyID(c, "company_id")
	cfg, err := h.Rating.Config(c.Request().Context(), web.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cfg)
}

func (h *Handlers) updateRatingConfig(c echo.Context) error {
	id := anyID(c, "company_id")
	var u rating.ConfigUpdate
	bodyErr := bindJSON(c, &u)
	res, err := h.Rating.UpdateConfig(c.Request().Context(), web.Principal(c), id, u, bodyErr)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
