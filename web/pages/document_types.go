package pages

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The document types page (docs/drivers-and-documents.md, "Custom document
// types"): the built-in and the company's own types, a form to add one and
// one to edit or retire one, saved through the same service methods as
// POST and PUT /api/v0/companies/{id}/document-types.

func (p *Pages) mountDocumentTypes(r *web.Routes) {
	p.addNav(views.NavItem{Href: "/document-types", Label: "nav.document_types", Icon: "check",
		Description: "nav.document_types.about"}, auth.DocumentRules)
	r.GET("/document-types", p.documentTypes)
	r.POST("/document-types", p.createDocumentType)
	r.GET("/document-types/:code", p.editDocumentType)
	r.POST("/document-types/:code", p.saveDocumentType)
}

func (p *Pages) documentTypes(c echo.Context) error {
	return p.showDocumentTypes(c, http.StatusOK, views.DocumentTypeForm{HasExpiry: true, LeadDays: "30"})
}

func (p *Pages) editDocumentType(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	types, err := p.svc.Documents.DocumentTypes(ctx, pr, pr.CompanyID)
	if err != nil {
		return err
	}
	code := c.Param("code")
	for _, t := range types {
		if t.Code == code && !t.BuiltIn {
			f := views.DocumentTypeForm{Editing: true, Code: t.Code, Names: t.Names, HasExpiry: t.HasExpiry,
				LeadDays: strconv.Itoa(t.LeadDays), Retired: t.Retired}
			if t.CappedBy != nil {
				f.CappedBy = *t.CappedBy
			}
			return p.renderTypes(c, http.StatusOK, types, f)
		}
	}
	return apperr.NotFound("msg.document_types.not_found")
}

func (p *Pages) createDocumentType(c echo.Context) error {
	return p.saveType(c, false)
}

func (p *Pages) saveDocumentType(c echo.Context) error {
	return p.saveType(c, true)
}

// saveType sends the form to the service; refused values come back in the
// form with the service's messages.
func (p *Pages) saveType(c echo.Context, editing bool) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	var f views.DocumentTypeForm
	// The form is read once the service has checked the caller.
	read := func(in *documents.TypeInput) error {
		form, err := c.FormParams()
		if err != nil {
			return apperr.BadRequest("msg.common.form_unreadable")
		}
		last := func(name string) string { return lastValue(form, name) }
		f = views.DocumentTypeForm{Editing: editing, Names: map[string]string{},
			HasExpiry: last("has_expiry") == "true", LeadDays: last("lead_days"), CappedBy: last("capped_by"), Retired: last("retired") == "true"}
		if editing {
			f.Code = c.Param("code")
		}
		names := map[string]string{}
		for _, l := range i18n.Langs {
			if v := last("name." + string(l)); v != "" {
				names[string(l)] = v
				f.Names[string(l)] = v
			}
		}
		*in = documents.TypeInput{Names: jsonValue(names), HasExpiry: jsonValue(f.HasExpiry), CappedBy: jsonValue(nil)}
		if f.CappedBy != "" {
			in.CappedBy = jsonValue(f.CappedBy)
		}
		if f.LeadDays != "" {
			in.LeadDays = jsonValue(f.LeadDays) // a string: the service refuses what is not a number
			if n, err := strconv.Atoi(f.LeadDays); err == nil {
				in.LeadDays = jsonValue(n)
			}
		}
		// A new type's code is made from its name by the service.
		if editing {
			in.Retired = jsonValue(f.Retired)
		}
		return nil
	}
	var err error
	if editing {
		_, err = p.svc.Documents.UpdateType(ctx, pr, pr.CompanyID, c.Param("code"), read)
	} else {
		_, err = p.svc.Documents.CreateType(ctx, pr, pr.CompanyID, read)
	}
	if errs, ok := formErrors(i18n.From(ctx), err, "names"); ok {
		f.Errors = errs
		return p.showDocumentTypes(c, http.StatusUnprocessableEntity, f)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "doctypes.saved")
	return p.redirect(c, "/document-types")
}

func (p *Pages) showDocumentTypes(c echo.Context, status int, f views.DocumentTypeForm) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	types, err := p.svc.Documents.DocumentTypes(ctx, pr, pr.CompanyID)
	if err != nil {
		return err
	}
	return p.renderTypes(c, status, types, f)
}

func (p *Pages) renderTypes(c echo.Context, status int, types []documents.DocumentType, f views.DocumentTypeForm) error {
	d := views.DocumentTypesData{CSRF: csrfToken(c), Form: f}
	for _, t := range types {
		row := views.DocumentTypeRow{Code: t.Code, LeadDays: strconv.Itoa(t.LeadDays), HasExpiry: t.HasExpiry, Retired: t.Retired, BuiltIn: t.BuiltIn}
		if t.CappedBy != nil {
			row.CappedBy = *t.CappedBy
		}
		d.Types = append(d.Types, row)
		if !t.Retired && t.Code != f.Code {
			d.CapChoices = append(d.CapChoices, views.Option{Value: t.Code})
		}
	}
	return p.render(c, status, "doctypes.title", views.DocumentTypesPage(d))
}
