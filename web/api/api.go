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
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/api/openapi"
)

// Handlers holds the services the API calls.
type Handlers struct {
	services.Set
}

// PlannedPaths are announced in the specification but not served yet (501).
var PlannedPaths = []string{"/orders", "/customers", "/invoices", "/gps/positions", "/analytics/reports", "/mobile", "/integrations"}

// Mount registers every /api/v0 route on the server.
func Mount(s *web.Server, h *Handlers) {
	s.PublicAPI().GET("/openapi.json", serveOpenAPI)
	s.Echo.GET("/api/docs", serveAPIDocs)

	g := s.API()
	g.GET("/audit-logs", h.listAuditLogs)
	h.mountDocuments(g)
	h.mountDocumentRules(g)
	h.mountDocumentTypes(g)
	h.mountNotifications(g)
	h.mountSessions(g)
	h.mountDrivers(g)
	h.mountFleet(g)
	h.mountUnits(g)
	h.mountImports(g)
	h.mountRating(g)
	h.mountFinance(g)
	h.mountMonthEnd(g)
	h.mountPayslips(g)
	h.mountPenalties(g)
	h.mountEvidence(g)
	h.mountWebhooks(g)
	h.mountUsers(g)
	// The live-update stream (docs/live-updates.md): every caller, its
	// company's events as it may read them.
	g.GET("/events", s.APIStream)

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

// apiDocsPage is the browsable reference: Swagger UI from the embedded
// static assets, reading /api/v0/openapi.json.
const apiDocsPage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Konvoj API reference</title>
<link rel="stylesheet" href="` + "/static/apidocs/swagger-ui.css" + `">
</head>
<body>
<main id="swagger-ui"></main>
<script src="/static/apidocs/swagger-ui-bundle.js"></script>
<script src="/static/apidocs/init.js"></script>
</body>
</html>`

func serveAPIDocs(c echo.Context) error {
	h := c.Response().Header()
	// Everything from this server only; Swagger UI needs inline styles.
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'")
	h.Set("Cache-Control", "public, max-age=300")
	return c.HTML(http.StatusOK, apiDocsPage)
}

func notImplemented(c echo.Context) error {
	return apperr.New(apperr.KindNotImplemented, "msg.api.not_implemented")
}

func (h *Handlers) listAuditLogs(c echo.Context) error {
	logs, err := h.Audit.List(c.Request().Context(), web.Principal(c), func(f *audit.Filter) error {
		q := query{c: c}
		r := q.pageRequest(offsetSize)
		*f = audit.Filter{
			EntityTypes: q.list("entity_type"),
			EntityIDs:   q.uuids("entity_id"),
			UserIDs:     q.uuids("user_id"),
			DriverIDs:   q.uuids("driver_id"),
			From:        q.time("from"),
			To:          q.timeEnd("to"),
			Page:        r,
		}
		return q.err()
	})
	if err != nil {
		return err
	}
	return writeList(c, logs)
}
