package pages

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/sessions"
	"github.com/konvoj/konvoj/web"
)

// securityHeaders: pages load nothing from other sites and are never framed
// (nosniff is the server's, on every answer).
func (p *Pages) securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		setSecurityHeaders(c.Response().Header())
		return next(c)
	}
}

func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; object-src 'none'; base-uri 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
}

var errNoSession = errors.New("no session")

// resolve turns the session cookie into the caller: the session row it
// names (internal/sessions: signed out, ended or expired is no session),
// then the same company check and user provisioning as an API token.
func (p *Pages) resolve(c echo.Context) (auth.Principal, error) {
	secret := p.cookies.sessionSecret(c)
	if secret == "" {
		return auth.Principal{}, errNoSession
	}
	ctx := c.Request().Context()
	s, err := p.svc.Sessions.Resolve(ctx, secret)
	if errors.Is(err, sessions.ErrNoSession) {
		return auth.Principal{}, errNoSession
	}
	if err != nil {
		return auth.Principal{}, err
	}
	pr, err := p.svc.Tenants.Principal(ctx, s.Identity)
	if err != nil {
		return auth.Principal{}, err
	}
	pr.SessionID = s.ID
	pr.IPAddress = c.RealIP()
	pr.UserAgent = c.Request().UserAgent()
	return pr, nil
}

// requireSession lets only signed-in people through; others go to the
// sign-in page and come back afterwards.
func (p *Pages) requireSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		pr, err := p.resolve(c)
		switch {
		case errors.Is(err, errNoSession):
			if p.cookies.sessionSecret(c) != "" {
				p.cookies.clearSession(c) // ended or expired: the browser may forget it
			}
			return p.toLogin(c)
		case apperr.KindOf(err) == apperr.KindAccessDenied, apperr.KindOf(err) == apperr.KindForbidden:
			// The company is gone or the user deactivated (the caller's
			// lookup checks no role): the session is worthless.
			p.cookies.clearSession(c)
			return err
		case err != nil:
			return err
		}
		web.SetPrincipal(c, pr)
		return next(c)
	}
}

// optionalSession sets the caller when there is a valid session, for pages
// that also work signed out.
func (p *Pages) optionalSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if pr, err := p.resolve(c); err == nil {
			web.SetPrincipal(c, pr)
		}
		return next(c)
	}
}

func (p *Pages) toLogin(c echo.Context) error {
	back := c.Request().URL.RequestURI()
	if isHTMX(c) {
		// Return to the page the person was on, not to a fragment URL.
		if cur, err := url.Parse(c.Request().Header.Get("HX-Current-URL")); err == nil && cur.Path != "" {
			back = cur.RequestURI()
		}
		c.Response().Header().Set("HX-Redirect", "/login?next="+url.QueryEscape(safeNext(back)))
		return c.NoContent(http.StatusUnauthorized)
	}
	if c.Request().Method != http.MethodGet {
		back = "/"
	}
	return c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(safeNext(back)))
}

// withLang puts the request's language into the context for the views, and
// for a signed-in user the names of the company's own document types
// (views.DocType).
func (p *Pages) withLang(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := i18n.WithLang(c.Request().Context(), p.langOf(c))
		if pr, ok := principalOf(c); ok {
			names, err := p.svc.Documents.TypeNames(ctx, pr)
			if err != nil {
				return err
			}
			ctx = documents.WithTypeNames(ctx, names)
		}
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// langOf: the signed-in user's stored language, else the language cookie
// (a choice made on the sign-in page), else the browser's Accept-Language
// when Konvoj speaks it, else the company's default language, else
// English. A user who never chose a language reads the pages in the
// browser's language (docs: "Language of the pages").
func (p *Pages) langOf(c echo.Context) i18n.Lang {
	pr, signedIn := principalOf(c)
	if l, ok := i18n.Parse(pr.PreferredLanguage); signedIn && ok {
		return l
	}
	if ck, err := c.Cookie(langCookie); err == nil {
		if l, ok := i18n.Parse(ck.Value); ok {
			return l
		}
	}
	if l, ok := i18n.FromAcceptLanguage(c.Request().Header.Get("Accept-Language")); ok {
		return l
	}
	if l, ok := i18n.Parse(pr.Language); signedIn && ok {
		return l
	}
	return i18n.Default
}

// setLanguage stores the chosen language on the user (when signed in) and
// in a cookie (for the sign-in page), then returns to the page.
func (p *Pages) setLanguage(c echo.Context) error {
	lang := c.FormValue("lang")
	if pr, ok := principalOf(c); ok {
		if err := p.svc.Tenants.SetLanguage(c.Request().Context(), pr, lang); err != nil {
			return err
		}
	} else if _, ok := i18n.Parse(lang); !ok {
		return apperr.Invalid("language", "msg.common.language")
	}
	l, _ := i18n.Parse(lang)
	p.cookies.set(c, langCookie, string(l), "/", langTTL, true)
	return p.redirect(c, safeNext(c.FormValue("next")))
}
