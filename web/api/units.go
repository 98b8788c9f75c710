package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/web"
)

// The transport units and readiness (docs/dispatch.md): thin handlers over
// units.Service.
func (h *Handlers) mountUnits(g *web.Routes) {
	g.GET("/transport-units", h.listUnits)
	g.POST("/transport-units", h.assignUnit)
	g.GET("/transport-units/:id", h.getUnit)
	g.PUT("/transport-units/:id", h.changeUnitTrailer)
	g.POST("/transport-units/:id/unassign", h.unassignUnit)
	g.GET("/transport-units/:id/readiness", h.unitReadiness)
	g.GET("/drivers/:id/readiness", h.driverReadiness)
}

func (h *Handlers) listUnits(c echo.Context) error {
	page, err := h.Units.List(c.Request().Context(), web.Principal(c), func(in *units.ListParams) error {
		q := query{c: c}
		*in = units.ListParams{
			Active:    q.optBool("active"),
			IsReady:   q.optBool("is_ready"),
			OfficeIDs: q.uuids("office_id"),
			DriverID:  q.uuid("driver_id"),
			VehicleID: q.uuid("vehicle_id"),
			TrailerID: q.uuid("trailer_id"),
			Search:    q.str("search"),
			Page:      q.pageRequest(offsetSize),
		}
		return q.err()
	})
	if err != nil {
		return err
	}
	return writeList(c, page)
}

func (h *Handlers) assignUnit(c echo.Context) error {
	u, err := h.Units.Assign(c.Request().Context(), web.Principal(c), func(in *units.AssignInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, u)
}

func (h *Handlers) getUnit(c echo.Context) error {
	u, err := h.Units.Get(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, u)
}

func (h *Handlers) changeUnitTrailer(c echo.Context) error {
	u, err := h.Units.ChangeTrailer(c.Request().Context(), web.Principal(c), web.PathID(c, "id"),
		func(in *units.TrailerInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, u)
}

func (h *Handlers) unassignUnit(c echo.Context) error {
	u, err := h.Units.Unassign(c.Request().Context(), web.Principal(c), web.PathID(c, "id"),
		func(in *units.UnassignInput) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, u)
}

func (h *Handlers) unitReadiness(c echo.Context) error {
	r, err := h.Units.Readiness(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), tripParams(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

func (h *Handlers) driverReadiness(c echo.Context) error {
	r, err := h.Units.DriverReadiness(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), tripParams(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

// tripParams reads a readiness's days (on, through), when the service asks.
func tripParams(c echo.Context) func(*units.Trip) error {
	return func(in *units.Trip) error {
		q := query{c: c}
		in.On, in.Through = q.civilDate("on"), q.civilDate("through")
		return q.err()
	}
}
