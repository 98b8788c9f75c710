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

// ruleHolder is the holder type whose rules a request reads or writes
// (?holder_type=vehicle|trailer; default driver).
func ruleHolder(c echo.Context) string {
	if h := c.QueryParam("holder_type"); h != "" {
		return h
	}
	return documents.HolderDriver
}

func (h *Handlers) getDocumentRules(c echo.Context) error {
	rules, err := h.Documents.HolderRules(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"), ruleHolder(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": rules})
}

func (h *Handlers) updateDocumentRules(c echo.Context) error {
	rules, err := h.Documents.UpdateHolderRules(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"), ruleHolder(c), func(u *documents.RulesUpdate) error {
		return web.Bind(c, u)
	})
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
	types, err := h.Documents.HolderDocumentTypes(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"), ruleHolder(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": types})
}

func (h *Handlers) createDocumentType(c echo.Context) error {
	t, err := h.Documents.CreateType(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"), func(in *documents.TypeInput) error {
		return web.Bind(c, in)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, t)
}

func (h *Handlers) updateDocumentType(c echo.Context) error {
	t, err := h.Documents.UpdateType(c.Request().Context(), web.Principal(c), web.PathID(c, "company_id"), c.Param("code"), func(in *documents.TypeInput) error {
		return web.Bind(c, in)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, t)
}
