package pages

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

func (p *Pages) mountSignIn(r *web.Routes) {
	r.GET("/login", p.login)
	r.POST("/logout", p.logout)
	if p.signIn != nil {
		r.GET("/auth/login", p.oidcStart)
		r.GET("/auth/callback", p.oidcCallback)
	}
	if p.devLogin {
		r.GET("/auth/dev", p.devLoginPage)
		r.POST("/auth/dev", p.devLoginSubmit)
	}
}

// login shows the sign-in choices; a signed-in visitor goes straight on.
func (p *Pages) login(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if _, ok := principalOf(c); ok {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return p.loginPage(c, http.StatusOK, next, "")
}

func (p *Pages) loginPage(c echo.Context, status int, next, problem string) error {
	return p.render(c, status, "login.title", views.Login(views.LoginData{
		OIDC: p.signIn != nil, DevLogin: p.devLogin, Next: next, Problem: problem,
	}))
}

// oidcStart begins the authorization code flow: a fresh state, nonce and
// PKCE verifier go into a short-lived encrypted cookie, the browser goes to
// the provider.
func (p *Pages) oidcStart(c echo.Context) error {
	f := auth.NewFlow(safeNext(c.QueryParam("next")))
	to, err := p.signIn.AuthCodeURL(c.Request().Context(), f)
	if err != nil {
		p.log.ErrorContext(c.Request().Context(), "identity provider unavailable", slog.Any("error", err))
		return p.loginPage(c, http.StatusServiceUnavailable, f.Next, "login.provider_down")
	}
	if err := p.cookies.setFlow(c, f); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, to)
}

// oidcCallback finishes the flow: the verified ID token's identity goes
// through the same company check and user provisioning as an API token.
func (p *Pages) oidcCallback(c echo.Context) error {
	ctx := c.Request().Context()
	f, ok := p.cookies.takeFlow(c)
	if !ok {
		return p.loginPage(c, http.StatusBadRequest, "/", "login.expired")
	}
	if e := c.QueryParam("error"); e != "" {
		p.log.WarnContext(ctx, "identity provider refused sign-in", slog.String("oidc_error", e))
		return p.loginPage(c, http.StatusBadRequest, f.Next, "login.refused")
	}
	id, err := p.signIn.Exchange(ctx, f, c.QueryParam("state"), c.QueryParam("code"))
	switch {
	case errors.Is(err, auth.ErrNoCompany):
		return p.loginPage(c, http.StatusForbidden, f.Next, "login.no_company")
	case errors.Is(err, auth.ErrSignIn):
		p.log.WarnContext(ctx, "sign-in failed", slog.Any("error", err))
		return p.loginPage(c, http.StatusBadRequest, f.Next, "login.failed")
	case err != nil:
		p.log.ErrorContext(ctx, "identity provider unavailable", slog.Any("error", err))
		return p.loginPage(c, http.StatusServiceUnavailable, f.Next, "login.provider_down")
	}
	return p.startSession(c, id, f.Next)
}

// startSession checks the identity like every request will, past the
// cached callers (unknown company, a deactivated user, a user of another
// company: a 403 page saying so), then stores a new session and gives the
// browser its cookie. A session the browser still held ends: a sign-in
// always starts afresh, so a session id planted before it is worth nothing
// after.
func (p *Pages) startSession(c echo.Context, id auth.Identity, next string) error {
	ctx := c.Request().Context()
	pr, err := p.svc.Tenants.SignInPrincipal(ctx, id)
	if err != nil {
		if e := (*apperr.Error)(nil); errors.As(err, &e) && e.Kind == apperr.KindAccessDenied && e.Text.Key == "msg.common.access_denied" {
			return apperr.New(apperr.KindAccessDenied, "msg.auth.no_company")
		}
		return err
	}
	if old, ok := principalOf(c); ok {
		if err := p.svc.Sessions.End(ctx, old); err != nil {
			return err
		}
	}
	secret, s, err := p.svc.Sessions.Start(ctx, id, pr, c.Request().UserAgent(), c.RealIP())
	if err != nil {
		return err
	}
	p.cookies.setSession(c, secret)
	p.log.InfoContext(ctx, "signed in", slog.String("company_id", pr.CompanyID.String()),
		slog.String("user_id", pr.UserID.String()), slog.String("role", string(pr.Role)), slog.String("session_id", s.ID.String()))
	return c.Redirect(http.StatusSeeOther, next)
}

// logout ends the session here and, when the provider offers it, there.
func (p *Pages) logout(c echo.Context) error {
	if pr, ok := principalOf(c); ok {
		if err := p.svc.Sessions.End(c.Request().Context(), pr); err != nil {
			return err
		}
	}
	p.cookies.clearSession(c)
	p.flash(c, views.FlashInfo, "login.signed_out")
	if p.signIn != nil {
		if end := p.signIn.EndSessionURL(c.Request().Context(), p.cfg.PublicURL+"/login"); end != "" {
			return c.Redirect(http.StatusSeeOther, end)
		}
	}
	return c.Redirect(http.StatusSeeOther, "/login")
}

// devDirectoryLimit bounds the companies the development page lists.
const devDirectoryLimit = 20

// devLoginPage lists the known users of the first companies by role, and a
// form for any company, role and e-mail (AUTH_DEV_LOGIN=true only).
func (p *Pages) devLoginPage(c echo.Context) error {
	dir, err := p.svc.Tenants.Directory(c.Request().Context(), devDirectoryLimit)
	if err != nil {
		return err
	}
	d := views.DevLoginData{Next: safeNext(c.QueryParam("next")), CSRF: csrfToken(c)}
	for _, r := range auth.Roles {
		d.Roles = append(d.Roles, string(r))
	}
	for _, co := range dir {
		dc := views.DevCompany{ID: co.ID.String(), Name: co.Name}
		for _, u := range co.Users {
			dc.Users = append(dc.Users, views.DevUser{Subject: u.Subject, Email: u.Email, Name: u.Name, Role: string(u.Role)})
		}
		d.Companies = append(d.Companies, dc)
	}
	return p.render(c, http.StatusOK, "devlogin.title", views.DevLogin(d))
}

// devLoginSubmit signs in without a provider, as a listed user, or by
// company, role and e-mail as the existing user with them (else a new one). The identity takes the same path as a
// token's, so the company must exist.
func (p *Pages) devLoginSubmit(c echo.Context) error {
	var v apperr.Validation
	companyID, err := uuid.Parse(strings.TrimSpace(c.FormValue("company_id")))
	if err != nil {
		v.Add("company_id", "msg.common.uuid", "field", i18n.M("field.company_id"))
	}
	role, ok := auth.ParseRole(c.FormValue("role"))
	if !ok {
		v.Add("role", "msg.auth.role")
	}
	email := strings.TrimSpace(c.FormValue("email"))
	if email == "" || !strings.Contains(email, "@") {
		v.Add("email", "msg.common.email")
	}
	if err := v.Err(); err != nil {
		return err
	}
	var id auth.Identity
	if subject := strings.TrimSpace(c.FormValue("subject")); subject != "" {
		// A listed user's button: exactly that user.
		id = auth.Identity{Subject: subject, Email: email, CompanyID: companyID.String(), Role: role}
	} else if id, err = p.svc.Tenants.DevIdentity(c.Request().Context(), companyID, email, role); err != nil {
		return err
	}
	return p.startSession(c, id, safeNext(c.FormValue("next")))
}
