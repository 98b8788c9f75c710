package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/web"
)

// Webhook endpoints and their delivery log (docs/webhooks.md): admins only.

func (h *Handlers) mountWebhooks(g *web.Routes) {
	g.GET("/webhooks", h.listWebhooks)
	g.POST("/webhooks", h.createWebhook)
	g.GET("/webhooks/:id", h.getWebhook)
	g.PUT("/webhooks/:id", h.updateWebhook)
	g.DELETE("/webhooks/:id", h.deleteWebhook)
	g.POST("/webhooks/:id/rotate-secret", h.rotateWebhookSecret)
	g.POST("/webhooks/:id/test", h.testWebhook)
	g.GET("/webhooks/:id/deliveries", h.listWebhookDeliveries)
	g.POST("/webhooks/:id/deliveries/:delivery_id/redeliver", h.redeliverWebhook)
}

func (h *Handlers) listWebhooks(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := p.Scope(auth.WebhooksManage)
	if err != nil {
		return err
	}
	list, err := h.Webhooks.List(ctx, p, company)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": list})
}

func (h *Handlers) createWebhook(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	company, err := p.Scope(auth.WebhooksManage)
	if err != nil {
		return err
	}
	var in webhooks.Input
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	e, err := h.Webhooks.Create(ctx, p, company, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, e)
}

func (h *Handlers) getWebhook(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	e, err := h.Webhooks.Get(ctx, p, ref)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

func (h *Handlers) updateWebhook(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	var in webhooks.Input
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	e, err := h.Webhooks.Update(ctx, p, ref, in)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

func (h *Handlers) deleteWebhook(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	if err := h.Webhooks.Delete(ctx, p, ref); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) rotateWebhookSecret(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	e, err := h.Webhooks.RotateSecret(ctx, p, ref)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

func (h *Handlers) testWebhook(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	d, err := h.Webhooks.SendTest(ctx, p, ref)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, d)
}

func (h *Handlers) listWebhookDeliveries(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	q := query{c: c}
	page, perPage := q.page(100)
	if err := q.err(); err != nil {
		return err
	}
	list, total, err := h.Webhooks.Deliveries(ctx, p, ref, page, perPage)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, NewPage(c, list, total, page, perPage))
}

func (h *Handlers) redeliverWebhook(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	ref, err := h.Webhooks.Authorize(ctx, p, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	d, err := h.Webhooks.Redeliver(ctx, p, ref, web.PathID(c, "delivery_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, d)
}
