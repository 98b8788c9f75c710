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
	if err := web.Bind(c, &u); err != nil {
		return err
	}
	rules, err := h.Documents.UpdateRules(ctx, p, company, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": rules})
}

func (h *Handlers) mountDocumentTypes(g *web.Routes) {
	g.GET("/companies/:company_id/document-types", h.listDocumentTypes)
	g.POST("/companies/:company_id/document-types", h.createDocumentType)
	g.PUT("/companies/:company_id/document-types/:code", h.updateDocumentType)
}

func (h *Handlers) listDocumentTypes(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Documents.AuthorizeRules(ctx, p, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	types, err := h.Documents.DocumentTypes(ctx, p, company)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": types})
}

func (h *Handlers) createDocumentType(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Documents.AuthorizeRules(ctx, p, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	var in documents.TypeInput
	if err := web.Bind(c, &in); err != nil {
		return err
	}
	t, err := h.Documents.CreateType(ctx, p, company, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t)
}

func (h *Handlers) updateDocumentType(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := h.Documents.AuthorizeRules(ctx, p, web.PathID(c, "company_id"))
	if err != nil {
		return err
	}
	var in documents.TypeInput
	if err := web.Bind(c, &in); err != nil {
		return err
	}
	t, err := h.Documents.UpdateType(ctx, p, company, c.Param("code"), in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}
