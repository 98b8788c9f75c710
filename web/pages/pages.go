// Package pages serves the server-rendered web app: sign-in (OpenID
// Connect, or the development sign-in), the layout shell and the pages.
// Handlers stay thin: bind the request, call the same service the API uses
// with the caller's Principal, render a templ component from views/.
//
// Adding a page (see audit.go for a complete one):
//
//	// web/pages/drivers.go
//	func (p *Pages) mountDrivers(r *web.Routes) {
//		p.addNav(views.NavItem{Href: "/drivers", Label: "nav.drivers", Icon: "users",
//			Description: "nav.drivers.about"}, auth.DriversRead)
//		r.GET("/drivers", p.driversList)
//	}
//
// and one line in Mount: p.mountDrivers(app). The handler takes the caller
// from web.Principal(c) and answers with p.render (a full page),
// p.fragment (an htmx partial) or p.redirect; a service error is simply
// returned and becomes the translated error page (or, for htmx, the error
// card in #main).
package pages

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/a-h/templ"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// Pages holds what every page handler needs.
type Pages struct {
	cfg     config.Config
	svc     services.Set // the same instances the API uses
	log     *slog.Logger
	cookies *cookies
	// signIn is nil when OIDC_ISSUER_URL is not set.
	signIn *auth.WebSignIn
	// devLogin: AUTH_DEV_LOGIN=true (config refuses it unless HS256).
	devLogin bool
	nav      []navEntry
}

// New builds the pages on the services. It needs no server, so that the
// server can be built with the pages' error renderer (RenderError); Mount
// then registers the routes on it.
func New(cfg config.Config, svc services.Set, log *slog.Logger) (*Pages, error) {
	if log == nil {
		log = slog.Default()
	}
	ck, err := newCookies(cfg.SessionSecret, strings.HasPrefix(cfg.PublicURL, "https://"))
	if err != nil {
		return nil, err
	}
	p := &Pages{cfg: cfg, svc: svc, log: log, cookies: ck, devLogin: cfg.AuthDevLogin && cfg.JWTAlg == "HS256"}
	if cfg.OIDCIssuerURL != "" {
		p.signIn = auth.NewWebSignIn(cfg.OIDCIssuerURL, cfg.OIDCClientID, cfg.OIDCClientSecret, cfg.PublicURL+"/auth/callback")
	}
	return p, nil
}

// Mount registers the static assets, the sign-in routes, the pages and
// their navigation on the server, once.
func (p *Pages) Mount(s *web.Server) {
	ck := p.cookies
	mountStatic(s.Echo)

	check := middleware.CSRFWithConfig(middleware.CSRFConfig{
		// Only the header: formToken puts a form's token there without
		// parsing a multipart body, and never takes it from the query.
		TokenLookup:    "header:" + echo.HeaderXCSRFToken,
		CookieName:     ck.name(csrfCookie),
		CookiePath:     "/",
		CookieMaxAge:   int(sessionTTL.Seconds()),
		CookieHTTPOnly: true,
		CookieSecure:   ck.secure,
		CookieSameSite: http.SameSiteLaxMode,
		ErrorHandler: func(error, echo.Context) error {
			return apperr.Forbiddenf("msg.auth.form_expired")
		},
	})
	csrf := func(next echo.HandlerFunc) echo.HandlerFunc { return formToken(check(next)) }

	// Pages anyone may open: sign-in, sign-out, the language switch.
	public := s.Group("", p.securityHeaders, p.optionalSession, s.PageRateLimit(), csrf, p.withLang)
	p.mountSignIn(public)
	public.POST("/language", p.setLanguage)

	// Pages behind sign-in. Each area adds one line here.
	app := s.Group("", p.securityHeaders, p.requireSession, s.PageRateLimit(), csrf, p.withLang)
	p.mountHome(app)
	p.mountAudit(app)
	p.mountDrivers(app)
	p.mountFleet(app)
	p.mountBoard(app)
	p.mountExpiring(app)
	p.mountImports(app)
	p.mountFinance(app)
	p.mountDocumentTypes(app)
	p.mountDocumentRules(app)
	p.mountWebhooks(app)
	p.mountPay(app)
	p.mountPayslips(app)
	p.mountPenalties(app)
	p.mountRating(app)
	p.mountNotifications(app)
	p.mountSessions(app)
	p.mountReview(app)
	p.mountOutbox(app)
	p.mountUsers(app)
	p.mountEvents(app, s)
}

// render writes a full page: the shell (navigation, language switch,
// flash messages) around content. titleKey is an i18n key.
func (p *Pages) render(c echo.Context, status int, titleKey string, content templ.Component) error {
	return p.renderTitled(c, status, i18n.From(c.Request().Context()).T(titleKey), content)
}

// renderTitled is render with a title that is not a catalogue key (a
// document type's name).
func (p *Pages) renderTitled(c echo.Context, status int, title string, content templ.Component) error {
	ctx := c.Request().Context()
	sh := p.shell(c, status, title)
	return p.write(c, status, views.Page(sh), templ.WithChildren(ctx, content))
}

// fragment writes a component alone, for htmx requests that swap a part
// of the page.
func (p *Pages) fragment(c echo.Context, status int, content templ.Component) error {
	return p.write(c, status, content, c.Request().Context())
}

// write renders into a buffer first, so a failing component gives a clean
// error page rather than half a page.
func (p *Pages) write(c echo.Context, status int, comp templ.Component, ctx context.Context) error {
	var buf bytes.Buffer
	if err := comp.Render(ctx, &buf); err != nil {
		return fmt.Errorf("render page: %w", err)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
	h.Set(echo.HeaderCacheControl, "no-store")
	if c.Request().Method == http.MethodHead {
		return c.NoContent(status)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// shell builds the layout's data for the request answered with status.
func (p *Pages) shell(c echo.Context, status int, title string) views.Shell {
	sh := views.Shell{Title: title, CSRF: csrfToken(c), Path: c.Request().URL.RequestURI(), Flashes: p.takeFlashes(c)}
	if at := refusedFormAddress(c, status); at != "" {
		sh.Path, sh.Address = at, at
	}
	if pr, ok := principalOf(c); ok {
		sh.User = &views.User{Name: pr.Name, Email: pr.Email, Role: string(pr.Role)}
		sh.Nav = p.navBar(c.Request().Context(), pr, c.Request().URL.Path)
		n, err := p.svc.Notifications.Unread(c.Request().Context(), pr)
		if err != nil {
			// The bell is not worth an error page.
			p.log.WarnContext(c.Request().Context(), "count unread notifications", slog.Any("error", err))
		}
		sh.Unread = n
	}
	return sh
}

// redirect sends the browser to a local URL: 303 for a normal request,
// HX-Redirect for htmx (which would otherwise swap the target page in).
func (p *Pages) redirect(c echo.Context, to string) error {
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", to)
		return c.NoContent(http.StatusNoContent)
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// flash queues a message for the next page the browser shows.
func (p *Pages) flash(c echo.Context, kind, key string, pairs ...string) {
	var list []flashMsg
	if ck, err := c.Cookie(flashCookie); err == nil {
		_ = p.cookies.flash.Decode(flashCookie, ck.Value, &list)
	}
	list = append(list, flashMsg{Kind: kind, Key: key, Args: pairs})
	if v, err := p.cookies.flash.Encode(flashCookie, list); err == nil {
		p.cookies.set(c, flashCookie, v, "/", flashTTL, true)
	}
}

func (p *Pages) takeFlashes(c echo.Context) []views.Flash {
	ck, err := c.Cookie(flashCookie)
	if err != nil {
		return nil
	}
	p.cookies.clear(c, flashCookie, "/")
	var list []flashMsg
	if err := p.cookies.flash.Decode(flashCookie, ck.Value, &list); err != nil {
		return nil
	}
	lang := i18n.From(c.Request().Context())
	out := make([]views.Flash, 0, len(list))
	for _, m := range list {
		args := make([]any, len(m.Args))
		for i, a := range m.Args {
			args[i] = a
		}
		out = append(out, views.Flash{Kind: m.Kind, Text: lang.T(m.Key, args...)})
	}
	return out
}

func csrfToken(c echo.Context) string {
	t, _ := c.Get("csrf").(string)
	return t
}

func isHTMX(c echo.Context) bool { return c.Request().Header.Get("HX-Request") == "true" }

func principalOf(c echo.Context) (auth.Principal, bool) {
	pr := web.Principal(c)
	return pr, pr.UserID != uuid.Nil
}

// safeNext keeps a return address local: a path on this site, never
// another host ("//evil", "/\evil", "https://…").
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	for _, r := range next {
		if r < 0x20 || r == 0x7f {
			return "/"
		}
	}
	return next
}
