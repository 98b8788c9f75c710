package pages

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

func (p *Pages) mountHome(r *web.Routes) {
	// Until the roles get home pages of their own, a driver's home is its
	// profile ("My profile", added by the drivers pages): the dashboard
	// entry would open the same page, so drivers (whose drivers grant is
	// Own) do not get it. Every other role reads drivers and keeps it.
	p.addOwnNav(views.NavItem{Href: "/", Label: "nav.home", Icon: "home"}, auth.DriversRead,
		func(auth.Principal) (views.NavItem, bool) { return views.NavItem{}, false })
	r.GET("/", p.home)
}

// home is the dashboard: who is signed in, for which company, and the
// pages the role may open. A driver linked to its record goes to its
// profile instead.
func (p *Pages) home(c echo.Context) error {
	pr := web.Principal(c)
	if pr.Grant(auth.DriversRead) == auth.Own && pr.DriverID != nil {
		// A driver's start page is its own profile and documents.
		return p.redirect(c, driverURL(*pr.DriverID))
	}
	co, err := p.svc.Tenants.Get(c.Request().Context(), pr.CompanyID)
	if err != nil {
		return err
	}
	d := views.HomeData{Name: pr.Name, Email: pr.Email, Role: string(pr.Role), CompanyName: co.Name}
	for _, it := range p.navFor(pr, c.Request().URL.Path) {
		if it.Href != "/" {
			d.Links = append(d.Links, it)
		}
	}
	return p.render(c, http.StatusOK, "home.title", views.Home(d))
}
