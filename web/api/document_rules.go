package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountDocumentRules(g *web.Routes) {
	g.GET("/companies/:company_id/document-rules", h.getDocumentRules)
	g.PUT("/companies/:company_id/document-rules", h.updateDocumentRules)
}

func (h *Handlers) getDocumentRules(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Documents.AuthorizeRules(ctx, p, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	rules, err := h.Documents.Rules(ctx, p, company)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": rules})
}

func (h *Handlers) updateDocumentRules(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Documents.AuthorizeRules(ctx, p, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	var u documents.RulesUpdate
	if err := bindJSON(c, &u); err != nil {
		return err
	}
	rules, err := h.Documents.UpdateRules(ctx, p, company, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": rules})
}
