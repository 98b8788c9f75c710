package pages

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The document rules page (docs/alerts.md): a table of the document types
// with the company's rule of each, saved through the same service method as
// PUT /api/v0/companies/{id}/document-rules.

func (p *Pages) mountDocumentRules(r *web.Routes) {
	p.addNav(views.NavItem{Href: "/document-rules", Label: "nav.document_rules", Icon: "check",
		Description: "nav.document_rules.about"}, auth.DocumentRules)
	r.GET("/document-rules", p.documentRules)
	r.POST("/document-rules", p.saveDocumentRules)
	r.POST("/document-rules/review", p.requireReview)
}

func (p *Pages) documentRules(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	rules, err := p.svc.Documents.Rules(ctx, pr, pr.CompanyID)
	if err != nil {
		return err
	}
	d, err := p.rulesData(c, rules)
	if err != nil {
		return err
	}
	for _, r := range rules {
		d.Rows = append(d.Rows, ruleRow(r))
	}
	return p.render(c, http.StatusOK, "rules.title", views.DocumentRulesPage(d))
}

// rulesData is the rules page without its rows: the groups "required
// for" offers (every driver, non-EU drivers, and a group per tag the
// company's drivers have or a rule names) and the offer to turn review on.
func (p *Pages) rulesData(c echo.Context, rules []documents.Rule) (views.DocumentRulesData, error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	tags, err := p.svc.Drivers.Tags(ctx, pr)
	if err != nil {
		return views.DocumentRulesData{}, err
	}
	d := views.DocumentRulesData{CSRF: csrfToken(c), Groups: []views.Option{
		{Value: "all", Label: lang.T("rules.required_for.all")},
		{Value: "non_eu", Label: lang.T("rules.required_for.non_eu")},
	}}
	for _, r := range rules {
		if tag, ok := strings.CutPrefix(r.RequiredFor, "tag:"); ok && !slices.Contains(tags, tag) {
			tags = append(tags, tag)
		}
	}
	slices.Sort(tags)
	for _, tag := range tags {
		d.Groups = append(d.Groups, views.Option{Value: "tag:" + tag, Label: lang.T("rules.required_for.tag", "tag", tag)})
	}
	if documents.ReviewOffered(rules) {
		d.ReviewOffer = &views.ReviewOffer{CSRF: d.CSRF, Return: "/document-rules"}
	}
	return d, nil
}

// requireReview turns review on for every document type (the offer on
// this page and the home page) and goes back to the page it came from.
func (p *Pages) requireReview(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	if _, err := p.svc.Documents.RequireReview(ctx, pr, pr.CompanyID); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "rules.review_on")
	back := "/document-rules"
	if c.FormValue("return") == "/" {
		back = "/"
	}
	return p.redirect(c, back)
}

// saveDocumentRules sends the rows of the form as one update, each with
// the fields the form sent; refused values come back in the table with the
// service's messages.
func (p *Pages) saveDocumentRules(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	current, err := p.svc.Documents.Rules(ctx, pr, pr.CompanyID)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return apperr.BadRequest("msg.common.form_unreadable")
	}
	d, err := p.rulesData(c, current)
	if err != nil {
		return err
	}
	var u documents.RulesUpdate
	var rowOf []int // the table row of each entry of u
	for i, r := range current {
		row := ruleRow(r)
		e := documents.RuleChange{DocumentType: jsonValue(r.DocumentType)}
		sent := false
		// A checkbox sends a hidden "false" and, when ticked, "true": the
		// last value counts.
		last := func(field string) (string, bool) {
			v := form[field+"."+r.DocumentType]
			if len(v) == 0 {
				return "", false
			}
			sent = true
			return strings.TrimSpace(v[len(v)-1]), true
		}
		if v, ok := last("required"); ok {
			row.Required, e.Required = v == "true", jsonValue(v == "true")
		}
		if v, ok := last("requires_review"); ok {
			row.RequiresReview, e.RequiresReview = v == "true", jsonValue(v == "true")
		}
		if v, ok := last("required_for"); ok {
			row.RequiredFor, e.RequiredFor = v, jsonValue(v)
		}
		if v, ok := last("lead_days"); ok {
			row.LeadDays, e.LeadDays = v, jsonValue(v) // a string: the service refuses what is not a number
			if n, err := strconv.Atoi(v); err == nil {
				e.LeadDays = jsonValue(n)
			}
		}
		d.Rows = append(d.Rows, row)
		if sent {
			u.Rules = append(u.Rules, e)
			rowOf = append(rowOf, i)
		}
	}
	if len(u.Rules) == 0 {
		return p.redirect(c, "/document-rules")
	}
	_, err = p.svc.Documents.UpdateRules(ctx, pr, pr.CompanyID, func(in *documents.RulesUpdate) error {
		*in = u
		return nil
	})
	if errs, ok := formErrors(i18n.From(ctx), err, ""); ok {
		// rules.<index>.<field>: the entry's row.
		for key, msgs := range errs {
			var i int
			var field string
			if n, _ := fmt.Sscanf(strings.Replace(key, ".", " ", 2), "rules %d %s", &i, &field); n == 2 && i >= 0 && i < len(rowOf) {
				r := &d.Rows[rowOf[i]]
				r.Errors = append(r.Errors, views.RuleError{Field: field, Messages: msgs})
			} else {
				d.Errors = append(d.Errors, msgs...)
			}
		}
		return p.render(c, http.StatusUnprocessableEntity, "rules.title", views.DocumentRulesPage(d))
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "rules.saved")
	return p.redirect(c, "/document-rules")
}

// ruleRow is a stored rule as the table shows it.
func ruleRow(r documents.Rule) views.DocumentRuleRow {
	return views.DocumentRuleRow{Type: r.DocumentType, Required: r.Required, RequiredFor: r.RequiredFor,
		LeadDays: strconv.Itoa(r.LeadDays), RequiresReview: r.RequiresReview}
}

func jsonValue(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
