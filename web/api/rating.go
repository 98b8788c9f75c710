package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountRating(g *web.Routes) {
	one := g.OneRecord()
	one.GET("/drivers/:id/rating", h.getRating)
	one.GET("/drivers/:id/rating/history", h.getRatingHistory)
	g.POST("/drivers/:id/rating/calculate", h.recalculateRating)
	g.GET("/ratings", h.listRatings)
	g.GET("/companies/:company_id/rating-config", h.getRatingConfig)
	g.PUT("/companies/:company_id/rating-config", h.updateRatingConfig)
}

func (h *Handlers) getRating(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	q := query{c: c}
	period := q.month("period")
	if perr := q.err(); perr != nil {
		if _, err := h.Rating.Authorize(ctx, p, auth.RatingRead, id); err != nil {
			return err // the guard's 403 and 404 come before a malformed period's 400
		}
		return perr
	}
	r, err := h.Rating.Read(ctx, p, id, period)
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
	ctx, p := c.Request().Context(), web.Principal(c)
	driver, err := h.Rating.Authorize(ctx, p, auth.RatingRead, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	q := query{c: c}
	page, perPage := q.page(24)
	if q.str("per_page") == "" {
		perPage = 12
	}
	f := rating.HistoryFilter{From: q.civilDate("from"), To: q.civilDate("to"), Page: page, PerPage: perPage}
	if err := q.err(); err != nil {
		return err
	}
	hist, err := h.Rating.History(ctx, p, driver, f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ratingHistoryPage{
		Page:    NewPage(c, hist.Items, hist.Total, page, perPage),
		Summary: hist.Summary,
	})
}

func (h *Handlers) recalculateRating(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	driver, err := h.Rating.Authorize(ctx, p, auth.RatingManage, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	var in rating.RecalculateInput
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	r, err := h.Rating.Recalculate(ctx, p, driver, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *Handlers) listRatings(c echo.Context) error {
	p := web.Principal(c)
	company, err := p.Scope(auth.RatingRead)
	if err != nil {
		return err
	}
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
	rows, total, err := h.Rating.Ranking(c.Request().Context(), p, company, f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, NewPage(c, rows, total, page, perPage))
}

func (h *Handlers) getRatingConfig(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Rating.AuthorizeConfig(ctx, p, auth.RatingRead, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	cfg, err := h.Rating.Config(ctx, p, company)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, cfg)
}

func (h *Handlers) updateRatingConfig(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Rating.AuthorizeConfig(ctx, p, auth.RatingManage, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	var u rating.ConfigUpdate
	if err := bindJSON(c, &u); err != nil {
		return err
	}
	res, err := h.Rating.UpdateConfig(ctx, p, company, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
