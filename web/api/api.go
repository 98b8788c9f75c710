// Package api holds the /api/v0 JSON handlers. Each handler binds the
// request, calls one service method with the caller's Principal, and renders
// the result; errors go back to web's error handler unchanged.
package api

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/api/openapi"
)

// Handlers holds the services the API calls.
type Handlers struct {
	Audit   *audit.Service
	Finance *finance.Service
}

// PlannedPaths are announced in the specification but not served yet (501).
var PlannedPaths = []string{"/orders", "/customers", "/invoices", "/gps/positions", "/analytics/reports", "/mobile", "/integrations"}

// Mount registers every /api/v0 route on the server.
func Mount(s *web.Server, h *Handlers) {
	s.PublicAPI().GET("/openapi.json", serveOpenAPI)

	g := s.API()
	g.GET("/audit-logs", h.listAuditLogs)
	h.mountFinance(g)
	h.mountPenalties(g)

	for _, p := range PlannedPaths {
		g.Any(p, notImplemented)
		g.Any(p+"/*", notImplemented)
	}
}

func serveOpenAPI(c echo.Context) error {
	doc, err := openapi.JSON()
	if err != nil {
		return fmt.Errorf("build OpenAPI document: %w", err)
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, "application/json", doc)
}

func notImplemented(c echo.Context) error {
	return &apperr.Error{Kind: apperr.KindNotImplemented, Message: "This part of the API is planned but not available yet."}
}

func (h *Handlers) listAuditLogs(c echo.Context) error {
	q := query{c: c}
	page, perPage := q.page(100)
	f := audit.Filter{
		EntityType: q.str("entity_type"),
		EntityID:   q.uuid("entity_id"),
		UserID:     q.uuid("user_id"),
		From:       q.time("from"),
		To:         q.timeEnd("to"),
		Page:       page,
		PerPage:    perPage,
	}
	if err := q.err(); err != nil {
		return err
	}
	logs, total, err := h.Audit.List(c.Request().Context(), web.Principal(c), f)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, NewPage(c, logs, total, page, perPage))
}
