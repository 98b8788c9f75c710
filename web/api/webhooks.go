package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/paging"
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
	list, err := h.Webhooks.List(c.Request().Context(), web.Principal(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"data": list})
}

func (h *Handlers) createWebhook(c echo.Context) error {
	e, err := h.Webhooks.Create(c.Request().Context(), web.Principal(c), func(in *webhooks.Input) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, e)
}

func (h *Handlers) getWebhook(c echo.Context) error {
	e, err := h.Webhooks.Get(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

func (h *Handlers) updateWebhook(c echo.Context) error {
	e, err := h.Webhooks.Update(c.Request().Context(), web.Principal(c), web.PathID(c, "id"),
		func(in *webhooks.Input) error { return web.Bind(c, in) })
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

func (h *Handlers) deleteWebhook(c echo.Context) error {
	if _, err := h.Webhooks.Delete(c.Request().Context(), web.Principal(c), web.PathID(c, "id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) rotateWebhookSecret(c echo.Context) error {
	e, err := h.Webhooks.RotateSecret(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, e)
}

func (h *Handlers) testWebhook(c echo.Context) error {
	d, err := h.Webhooks.SendTest(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, d)
}

func (h *Handlers) listWebhookDeliveries(c echo.Context) error {
	_, list, err := h.Webhooks.Deliveries(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), func() (paging.Request, error) {
		q := query{c: c}
		r := q.pageRequest(offsetSize)
		return r, q.err()
	})
	if err != nil {
		return err
	}
	return writeList(c, list)
}

func (h *Handlers) redeliverWebhook(c echo.Context) error {
	d, err := h.Webhooks.Redeliver(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "delivery_id"))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, d)
}
