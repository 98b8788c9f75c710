package api

import (
	"mime/multipart"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/imports"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountImports(g *web.Routes) {
	for _, kind := range imports.Kinds {
		g.POST("/imports/"+string(kind), h.startImport(kind))
		g.GET("/imports/"+string(kind)+"/template", h.importTemplate(kind))
	}
	g.GET("/imports/:id", h.getImport)
}

// startImport starts an import of drivers, vehicles or trailers
// (docs/import-export.md): 201 with the result when it ran within the
// request, 202 while its job is queued.
func (h *Handlers) startImport(kind imports.Kind) echo.HandlerFunc {
	return func(c echo.Context) error {
		body := func() (*multipart.Reader, error) { return web.UploadBody(c, h.Imports.MaxBytes()) }
		im, err := h.Imports.Receive(c.Request().Context(), web.Principal(c), kind, body, c.QueryParam("dry_run"), c.QueryParam("mode"), false)
		if err != nil {
			return err
		}
		status := http.StatusCreated
		if im.Status == "queued" || im.Status == "running" {
			status = http.StatusAccepted
		}
		return c.JSON(status, im)
	}
}

// importTemplate downloads the kind's import template in the caller's
// language (docs/import-export.md): XLSX with drop-down lists, or CSV.
func (h *Handlers) importTemplate(kind imports.Kind) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := web.Principal(c)
		return web.ExportBuilt(c, kind.TemplateName(), func(readFormat func() (export.Format, error)) ([]byte, error) {
			return h.Imports.Template(c.Request().Context(), p, kind, callerLang(c, p), readFormat)
		})
	}
}

func (h *Handlers) getImport(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	im, err := h.Imports.Get(ctx, p, web.PathID(c, "id"), i18n.EN)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, im)
}
