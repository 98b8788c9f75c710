package pages

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The sessions page (docs/security.md, "Web sign-in and sessions"): the
// browsers signed in as the caller, each with its device, address, sign-in
// and last activity, an End button per session and "sign out everywhere
// else". Every signed-in person has it, in the navigation's settings.

func (p *Pages) mountSessions(r *web.Routes) {
	p.addNav(views.NavItem{Href: sessionsURL, Label: "shell.sessions", Icon: "lock"}, auth.SessionsOwn)
	r.GET(sessionsURL, p.sessions)
	r.POST("/sessions/end-others", p.endOtherSessions)
	r.POST("/sessions/:id/end", p.endSession)
}

func (p *Pages) sessions(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	list, err := p.svc.Sessions.List(ctx, pr)
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), pr.Location()
	d := views.SessionsData{CSRF: csrfToken(c)}
	for _, s := range list {
		ip := s.IPAddress
		if ip == "" {
			ip = lang.T("sessions.unknown_ip")
		}
		d.Items = append(d.Items, views.SessionItem{ID: s.ID.String(), Device: deviceOf(lang, s.UserAgent), IP: ip,
			Created: lang.DateTime(s.CreatedAt, loc), LastSeen: lang.DateTime(s.LastSeenAt, loc), Current: s.ID == pr.SessionID})
	}
	return p.render(c, http.StatusOK, "sessions.title", views.SessionsPage(d))
}

func (p *Pages) endSession(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	if err := p.svc.Sessions.Delete(ctx, pr, web.PathID(c, "id")); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "sessions.ended")
	return p.redirect(c, "/sessions")
}

func (p *Pages) endOtherSessions(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	n, err := p.svc.Sessions.DeleteOthers(ctx, pr)
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "sessions.ended_others", "count", strconv.Itoa(n))
	return p.redirect(c, "/sessions")
}

// deviceOf names the browser and system of a User-Agent ("Firefox on
// Windows"): enough for a person to tell their devices apart, no more.
func deviceOf(lang i18n.Lang, ua string) string {
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(ua, x) {
				return true
			}
		}
		return false
	}
	browser := lang.T("sessions.unknown_browser")
	switch {
	case has("Edg/", "EdgA/", "EdgiOS/"):
		browser = "Edge"
	case has("OPR/", "Opera"):
		browser = "Opera"
	case has("Firefox/", "FxiOS/"):
		browser = "Firefox"
	case has("Chromium/"):
		browser = "Chromium"
	case has("Chrome/", "CriOS/"):
		browser = "Chrome"
	case has("Safari/") && has("Version/"):
		browser = "Safari"
	}
	system := lang.T("sessions.unknown_os")
	switch {
	case has("Windows"):
		system = "Windows"
	case has("iPhone", "iPad", "iPod"):
		system = "iOS"
	case has("Android"):
		system = "Android"
	case has("CrOS"):
		system = "ChromeOS"
	case has("Macintosh", "Mac OS X"):
		system = "macOS"
	case has("Linux"):
		system = "Linux"
	}
	return lang.T("sessions.device_on", "browser", browser, "os", system)
}
