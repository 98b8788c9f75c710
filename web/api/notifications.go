package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/web"
)

// The caller's own notifications and e-mail settings (docs/alerts.md):
// every signed-in user, for itself only.

func (h *Handlers) mountNotifications(g *web.Routes) {
	g.GET("/notifications", h.listNotifications)
	g.POST("/notifications/read-all", h.readAllNotifications)
	g.POST("/notifications/:id/read", h.readNotification)
	g.GET("/me/notification-settings", h.getNotificationSettings)
	g.PUT("/me/notification-settings", h.updateNotificationSettings)
}

func (h *Handlers) listNotifications(c echo.Context) error {
	p := web.Principal(c)
	q := query{c: c}
	r := q.pageRequest(offsetSize)
	f := alerts.ListFilter{Unread: q.optBool("unread"), Page: r}
	if err := q.err(); err != nil {
		return err
	}
	list, err := h.Notifications.List(c.Request().Context(), p, f)
	if err != nil {
		return err
	}
	return writeList(c, list)
}

func (h *Handlers) readNotification(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	if err := h.Notifications.MarkRead(ctx, p, web.PathID(c, "id")); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (h *Handlers) readAllNotifications(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	n, err := h.Notifications.MarkAllRead(ctx, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int{"marked": n})
}

func (h *Handlers) getNotificationSettings(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	s, err := h.Notifications.Settings(ctx, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s)
}

func (h *Handlers) updateNotificationSettings(c echo.Context) error {
	ctx, p := c.Request().Context(), web.Principal(c)
	var u alerts.SettingsUpdate
	if err := web.Bind(c, &u); err != nil {
		return err
	}
	s, err := h.Notifications.UpdateSettings(ctx, p, u)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s)
}
