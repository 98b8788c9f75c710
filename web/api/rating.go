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
	q := query{c: c}
	period := q.month("period")
	// The driver's 403 and 404 come before a malformed period's 400.
	r, err := h.Rating.Read(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), period, q.err())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *Handlers) getRatingHistory(c echo.Context) error {
	hist, err := h.Rating.History(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), func(f *rating.HistoryFilter) error {
		q := query{c: c}
		r := q.pageRequest(pageSize{def: 12, max: 24})
		*f = rating.HistoryFilter{From: q.civilDate("from"), To: q.civilDate("to"), Page: r}
		return q.err()
	})
	if err != nil {
		return err
	}
	return writeList(c, hist.Page, with("summary", hist.Summary))
}

func (h *Handlers) recalculateRating(c echo.Context) error {
	r, err := h.Rating.Recalculate(c.Request().Context(), web.Principal(c), web.PathID(c, "id"),
		func(in *rating.RecalculateInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *Handlers) listRatings(c echo.Context) error {
	rows, err := h.Rating.Ranking(c.Request().Context(), web.Principal(c), func(f *rating.RankingFilter) error {
		q := query{c: c}
		r := q.pageRequest(offsetSize)
		period := q.month("period")
		if err := q.err(); err != nil {
			return err
		}
		*f = rating.RankingFilter{
			Period: period, SortBy: q.str("sort_by"), SortOrder: q.str("sort_order"),
			Page: r,
		}
		return nil
	})
	if err != nil {
		return err
	}
	return writeList(c, rows)
}

func (h *Handlers) getRatingConfig(c echo.Context) error {
	cfg, err := h.Rating.Config(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cfg)
}

func (h *Handlers) updateRatingConfig(c echo.Context) error {
	res, err := h.Rating.UpdateConfig(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"),
		func(u *rating.ConfigUpdate) error { return web.Bind(c, u) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
