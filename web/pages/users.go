package pages

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The users page (docs/security.md, "Users"): who has access to the
// company, with the role last seen from the identity provider, whether the
// account is active, the last sign-in and the live sessions; admins
// deactivate (after a question on its own page) and reactivate anyone but
// themselves, through the service the API uses.

const (
	usersURL     = "/users"
	usersPerPage = 25
)

func (p *Pages) mountUsers(r *web.Routes) {
	p.addNav(views.NavItem{Href: usersURL, Label: "nav.users", Icon: "user", Description: "nav.users.about"}, auth.UsersManage)
	r.GET(usersURL, p.users)
	r.GET(usersURL+"/:id/deactivate", p.confirmDeactivateUser)
	r.POST(usersURL+"/:id/deactivate", p.deactivateUser)
	r.POST(usersURL+"/:id/reactivate", p.reactivateUser)
}

// usersState is the list's filters and page as the address holds them:
// search, role and is_active as the API names them.
type usersState struct {
	Search, Role, Active string
	Page                 int
}

// readUsersState reads the address; a role or activity that is not one of
// the choices is left out, as the filter's select would.
func readUsersState(q url.Values) usersState {
	s := usersState{Search: strings.TrimSpace(q.Get("search"))}
	if r, ok := auth.ParseRole(q.Get("role")); ok {
		s.Role = string(r)
	}
	if a := q.Get("is_active"); a == "true" || a == "false" {
		s.Active = a
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

// url is the state's address, empty values left out.
func (s usersState) url() string {
	q := url.Values{}
	for _, kv := range [][2]string{{"search", s.Search}, {"role", s.Role}, {"is_active", s.Active}} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	if len(q) == 0 {
		return usersURL
	}
	return usersURL + "?" + q.Encode()
}

func (p *Pages) users(c echo.Context) error {
	if hasEmptyValue(c.QueryParams()) {
		// The filter form sends its empty fields too: keep the address
		// short and shareable.
		return p.redirect(c, readUsersState(c.QueryParams()).url())
	}
	return p.renderUsers(c, http.StatusOK, readUsersState(c.QueryParams()), "")
}

// renderUsers shows the list of st, with problem (a refused change) above
// it, answering status.
func (p *Pages) renderUsers(c echo.Context, status int, st usersState, problem string) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	list, err := p.svc.Tenants.Users(ctx, pr, func(f *tenants.UserFilter) error {
		*f = tenants.UserFilter{Search: st.Search, Role: auth.Role(st.Role), Page: paging.Request{Number: st.Page, Size: usersPerPage}}
		if st.Active != "" {
			active := st.Active == "true"
			f.Active = &active
		}
		return nil
	})
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), pr.Location()
	here := st.url()
	d := views.UsersData{CSRF: csrfToken(c), Here: here, Search: st.Search, Problem: problem,
		Filtered: st.Search != "" || st.Role != "" || st.Active != ""}
	for _, r := range auth.Roles {
		d.Roles = append(d.Roles, views.Option{Value: string(r), Label: lang.T("role." + string(r)), Selected: string(r) == st.Role})
	}
	d.Activity = []views.Option{
		{Value: "true", Label: lang.T("users.active"), Selected: st.Active == "true"},
		{Value: "false", Label: lang.T("users.inactive"), Selected: st.Active == "false"},
	}
	back := "?back=" + url.QueryEscape(here)
	for _, u := range list.Items {
		it := views.UserItem{ID: u.ID.String(), Name: userName(u), Email: u.Email, Role: lang.T("role." + string(u.Role)),
			Active: u.IsActive, Sessions: u.ActiveSessions, Self: u.ID == pr.UserID, LastLogin: lang.T("users.never"),
			DeactivateURL: userURL(u.ID) + "/deactivate" + back, ReactivateURL: userURL(u.ID) + "/reactivate"}
		if u.LastLoginAt != nil {
			it.LastLogin = lang.DateTime(*u.LastLoginAt, loc)
		}
		d.Items = append(d.Items, it)
	}
	d.Pager = pager(list, func(n int) string { at := st; at.Page = n; return at.url() })
	return p.render(c, status, "users.title", views.UsersPage(d))
}

// confirmDeactivateUser asks before the deactivation (a page of its own,
// which works without JavaScript).
func (p *Pages) confirmDeactivateUser(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	u, err := p.svc.Tenants.User(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, "users.title", views.DeactivateUser(views.DeactivateUserData{
		CSRF: csrfToken(c), Name: userName(u), Action: userURL(u.ID) + "/deactivate", Back: usersBack(c.QueryParam("back")),
	}))
}

func (p *Pages) deactivateUser(c echo.Context) error {
	return p.setUserActive(c, p.svc.Tenants.Deactivate, "users.deactivated")
}

func (p *Pages) reactivateUser(c echo.Context) error {
	return p.setUserActive(c, p.svc.Tenants.Reactivate, "users.reactivated")
}

// setUserActive runs the change and goes back to the list it came from
// (the form's "back") with a flash; a refusal (oneself: 409) is said above
// that list.
func (p *Pages) setUserActive(c echo.Context, change func(context.Context, auth.Principal, uuid.UUID) (tenants.User, error), done string) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	back := usersBack(c.FormValue("back"))
	u, err := change(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		r, ok := refusalOf(i18n.From(ctx), err, noFile)
		if !ok {
			return err
		}
		to, _ := url.Parse(back)
		return p.renderUsers(c, r.status, readUsersState(to.Query()), r.text())
	}
	p.flash(c, views.FlashSuccess, done, "name", userName(u))
	return p.redirect(c, back)
}

// usersBack is a list address to return to: the users list with its
// filters, never another page.
func usersBack(raw string) string {
	back := safeNext(raw)
	if back != usersURL && !strings.HasPrefix(back, usersURL+"?") {
		return usersURL
	}
	return back
}

func userURL(id uuid.UUID) string { return usersURL + "/" + id.String() }

// userName is the user's name, else its e-mail.
func userName(u tenants.User) string {
	var parts []string
	for _, s := range []*string{u.FirstName, u.LastName} {
		if s != nil && strings.TrimSpace(*s) != "" {
			parts = append(parts, strings.TrimSpace(*s))
		}
	}
	if len(parts) == 0 {
		return u.Email
	}
	return strings.Join(parts, " ")
}
