package api

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/web"
)

// The vehicles and trailers (docs/fleet.md): thin handlers over
// fleet.Service.
func (h *Handlers) mountFleet(g *web.Routes) {
	g.GET("/vehicles", h.listVehicles)
	g.GET("/vehicles/export", h.exportVehicles)
	g.POST("/vehicles", h.createVehicle)
	g.GET("/vehicles/:id", h.getVehicle)
	g.PUT("/vehicles/:id", h.updateVehicle)
	g.DELETE("/vehicles/:id", h.deleteVehicle)
	g.GET("/trailers", h.listTrailers)
	g.GET("/trailers/export", h.exportTrailers)
	g.POST("/trailers", h.createTrailer)
	g.GET("/trailers/:id", h.getTrailer)
	g.PUT("/trailers/:id", h.updateTrailer)
	g.DELETE("/trailers/:id", h.deleteTrailer)
}

func (h *Handlers) listVehicles(c echo.Context) error {
	res, err := h.Fleet.ListVehicles(c.Request().Context(), web.Principal(c), fleetListParams(c))
	if err != nil {
		return err
	}
	return writeList(c, res.Page)
}

func (h *Handlers) listTrailers(c echo.Context) error {
	res, err := h.Fleet.ListTrailers(c.Request().Context(), web.Principal(c), fleetListParams(c))
	if err != nil {
		return err
	}
	return writeList(c, res.Page)
}

// fleetListParams reads a vehicles or trailers list's filters, sort,
// paging and change feed (docs/lists.md), when the service asks.
func fleetListParams(c echo.Context) func(*fleet.ListParams) error {
	return func(in *fleet.ListParams) error {
		q := query{c: c}
		*in = fleet.ListParams{
			Status:         q.list("status"),
			Type:           q.list("type"),
			OfficeIDs:      q.uuids("office_id"),
			Tags:           q.list("tag"),
			DocumentStatus: q.list("document_status"),
			IsReady:        q.str("is_ready"),
			Search:         q.str("search"),
			SortBy:         q.str("sort_by"),
			SortOrder:      q.str("sort_order"),
			Feed:           feedParams(&q),
		}
		if !in.Feed.On() {
			in.Page = q.pageRequest(pageSize{def: 20, max: 100, cursor: true})
		}
		return q.err()
	}
}

func (h *Handlers) getVehicle(c echo.Context) error {
	v, err := h.Fleet.ReadVehicle(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (h *Handlers) getTrailer(c echo.Context) error {
	t, err := h.Fleet.ReadTrailer(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (h *Handlers) createVehicle(c echo.Context) error {
	v, err := h.Fleet.CreateVehicle(c.Request().Context(), web.Principal(c), fleetInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, v)
}

func (h *Handlers) createTrailer(c echo.Context) error {
	t, err := h.Fleet.CreateTrailer(c.Request().Context(), web.Principal(c), fleetInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t)
}

func (h *Handlers) updateVehicle(c echo.Context) error {
	v, err := h.Fleet.UpdateVehicle(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), fleetInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

func (h *Handlers) updateTrailer(c echo.Context) error {
	t, err := h.Fleet.UpdateTrailer(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), fleetInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}

func (h *Handlers) deleteVehicle(c echo.Context) error {
	if _, err := h.Fleet.DeleteVehicle(c.Request().Context(), web.Principal(c), web.PathID(c, "id")); err != nil {
		return err
	}
	return noContent(c)
}

func (h *Handlers) deleteTrailer(c echo.Context) error {
	if _, err := h.Fleet.DeleteTrailer(c.Request().Context(), web.Principal(c), web.PathID(c, "id")); err != nil {
		return err
	}
	return noContent(c)
}

// fleetInput reads the body, when the service asks, as field → raw JSON,
// so the service can tell a missing field from a null one.
func fleetInput(c echo.Context) func(*fleet.Input) error {
	return func(in *fleet.Input) error {
		var fields map[string]json.RawMessage
		if err := web.Bind(c, &fields); err != nil {
			return err
		}
		in.Fields = fields
		return nil
	}
}
