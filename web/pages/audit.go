package pages

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// auditPerPage is the audit log page size.
const auditPerPage = 50

func (p *Pages) mountAudit(r *web.Routes) {
	p.addNav(views.NavItem{Href: "/audit", Label: "nav.audit", Icon: "clipboard", Description: "nav.audit.about"}, auth.AuditRead)
	r.GET("/audit", p.auditLog)
}

// auditLog lists the company's audit rows, newest first. The service
// decides who may read them (403 page for other roles).
func (p *Pages) auditLog(c echo.Context) error {
	pr := web.Principal(c)
	company, err := pr.Scope(auth.AuditRead)
	if err != nil {
		return err
	}
	page, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil || page < 1 {
		page = 1
	}
	rows, total, err := p.svc.Audit.List(c.Request().Context(), pr, company, audit.Filter{Page: page, PerPage: auditPerPage})
	if err != nil {
		return err
	}
	lang := i18n.From(c.Request().Context())
	d := views.AuditData{Page: page, Total: total, LastPage: max(1, (total+auditPerPage-1)/auditPerPage)}
	for _, r := range rows {
		who := ""
		if r.User != nil {
			who = *r.User
		}
		d.Rows = append(d.Rows, views.AuditRow{
			When: lang.DateTime(r.CreatedAt, pr.Location()), User: who, Action: r.Action,
			EntityType: r.EntityType, EntityID: r.EntityID.String()[:8],
		})
	}
	if page > 1 {
		d.PrevURL = "/audit?page=" + strconv.Itoa(min(page-1, d.LastPage))
	}
	if page < d.LastPage {
		d.NextURL = "/audit?page=" + strconv.Itoa(page+1)
	}
	return p.render(c, http.StatusOK, "audit.title", views.AuditLog(d))
}
