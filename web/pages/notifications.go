package pages

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The notifications page (docs/alerts.md): the caller's own notifications,
// newest first, marking them read, and the e-mail choices per kind. Every
// signed-in user has one; the bell in the header links here.

const notificationsPerPage = 25

func (p *Pages) mountNotifications(r *web.Routes) {
	r.GET("/notifications", p.notifications)
	r.GET("/notifications/bell", p.notificationBell)
	r.POST("/notifications/read-all", p.readAllNotifications)
	r.POST("/notifications/settings", p.saveNotificationSettings)
	r.POST("/notifications/:id/read", p.readNotification)
}

func (p *Pages) notifications(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	page := pageParam(c)
	list, err := p.svc.Notifications.List(ctx, pr, alerts.ListFilter{Page: paging.Request{Number: page, Size: notificationsPerPage}})
	if err != nil {
		return err
	}
	settings, err := p.svc.Notifications.Settings(ctx, pr)
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), pr.Location()
	d := views.NotificationsData{CSRF: csrfToken(c), DevOutbox: p.devLogin && shows(pr, auth.OutboxRead)}
	for _, n := range list.Items {
		d.Items = append(d.Items, views.NotificationItem{ID: n.ID.String(), Title: n.Title, Body: n.Body, Unread: n.ReadAt == nil,
			When: lang.DateTime(n.CreatedAt, loc), Link: notificationLink(n)})
	}
	for _, k := range alerts.Kinds {
		d.Settings = append(d.Settings, views.NotificationSetting{Kind: k, On: settings.Email[k]})
	}
	d.Pager = pager(list, func(n int) string { return "/notifications?page=" + strconv.Itoa(n) })
	d.URL = "/notifications"
	if page > 1 {
		d.URL += "?page=" + strconv.Itoa(page)
	}
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == views.NotificationListID {
		// A new notification (static/live.js): the list alone.
		return p.fragment(c, http.StatusOK, views.NotificationList(d))
	}
	return p.render(c, http.StatusOK, "notifications.title", views.NotificationsPage(d))
}

// notificationBell is the header's bell alone, which static/live.js
// fetches again when a notification arrives.
func (p *Pages) notificationBell(c echo.Context) error {
	n, err := p.svc.Notifications.Unread(c.Request().Context(), web.Principal(c))
	if err != nil {
		return err
	}
	return p.fragment(c, http.StatusOK, views.Bell(n))
}

// notificationLink is the page a notification is about, where its reader
// acts on it: an upload waiting for review opens the review queue, a
// dispute the penalty, a disabled endpoint the webhooks; the other
// document notifications (stages, review outcomes) the document's page,
// a driver's, a vehicle's or a trailer's; a transport unit's change of
// readiness the unit's row on the readiness board.
func notificationLink(n alerts.Notification) string {
	switch {
	case n.Kind == alerts.KindWebhookDisabled:
		return webhooksURL
	case n.Kind == alerts.KindDispute && n.DriverID != nil && n.PenaltyID != nil:
		return penaltyURL(*n.DriverID, *n.PenaltyID)
	case n.Kind == alerts.KindUnit && n.UnitID != nil:
		return "/#unit-" + n.UnitID.String()
	case n.Kind == alerts.KindReview && n.Stage == alerts.StageRequested:
		return reviewQueueURL
	case n.HolderType != nil && n.HolderID != nil && n.DocumentID != nil:
		return holderDocumentURL(*n.HolderType, *n.HolderID, *n.DocumentID)
	case n.DriverID != nil && n.DocumentID != nil:
		return documentURL(*n.DriverID, *n.DocumentID)
	case n.HolderType != nil && n.HolderID != nil:
		return holderURL(*n.HolderType, *n.HolderID)
	case n.DriverID != nil:
		return driverURL(*n.DriverID)
	}
	return "/notifications"
}

func (p *Pages) readNotification(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	if err := p.svc.Notifications.MarkRead(ctx, pr, web.PathID(c, "id")); err != nil {
		return err
	}
	return p.redirect(c, "/notifications")
}

func (p *Pages) readAllNotifications(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	if _, err := p.svc.Notifications.MarkAllRead(ctx, pr); err != nil {
		return err
	}
	return p.redirect(c, "/notifications")
}

// saveNotificationSettings stores the e-mail checkboxes (a hidden "false"
// and, when ticked, "true": the last value counts).
func (p *Pages) saveNotificationSettings(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	form, err := c.FormParams()
	if err != nil {
		return apperr.BadRequest("msg.common.form_unreadable")
	}
	u := alerts.SettingsUpdate{Email: map[string]json.RawMessage{}}
	for _, k := range alerts.Kinds {
		if v := form["email."+k]; len(v) > 0 {
			u.Email[k] = jsonValue(v[len(v)-1] == "true")
		}
	}
	if _, err := p.svc.Notifications.UpdateSettings(ctx, pr, u); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "notifications.settings_saved")
	return p.redirect(c, "/notifications")
}
