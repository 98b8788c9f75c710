package pages

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The webhooks settings page (docs/webhooks.md, admins only): the
// company's endpoints and a form to register one; each endpoint's page has
// its actions (send a test event, disable or enable, rotate the secret,
// delete after a confirmation),
// its edit form and its delivery log with a redeliver button per row. All
// of it goes through the same service methods as /api/v0/webhooks. A new
// secret (create, rotation) is shown once, in the answer to the POST that
// made it, and never again.

const (
	webhooksURL          = "/settings/webhooks"
	webhookDeliveriesPer = 25
)

func (p *Pages) mountWebhooks(r *web.Routes) {
	p.addNav(views.NavItem{Href: webhooksURL, Label: "nav.webhooks", Icon: "bolt", Description: "nav.webhooks.about"},
		auth.WebhooksManage)
	r.GET(webhooksURL, p.webhooks)
	r.POST(webhooksURL, p.createWebhook)
	r.GET(webhooksURL+"/:id", p.webhook)
	r.POST(webhooksURL+"/:id", p.saveWebhook)
	r.POST(webhooksURL+"/:id/enabled", p.setWebhookEnabled)
	r.POST(webhooksURL+"/:id/rotate-secret", p.rotateWebhookSecret)
	r.POST(webhooksURL+"/:id/test", p.testWebhook)
	r.GET(webhooksURL+"/:id/delete", p.confirmDeleteWebhook)
	r.POST(webhooksURL+"/:id/delete", p.deleteWebhook)
	r.POST(webhooksURL+"/:id/deliveries/:delivery_id/redeliver", p.redeliverWebhook)
}

func webhookPageURL(id string) string { return webhooksURL + "/" + id }

func (p *Pages) webhooks(c echo.Context) error {
	return p.showWebhooks(c, http.StatusOK, views.WebhookForm{Action: webhooksURL, Token: forms.NewToken()})
}

func (p *Pages) showWebhooks(c echo.Context, status int, f views.WebhookForm) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	list, err := p.svc.Webhooks.List(ctx, pr)
	if err != nil {
		return err
	}
	d := views.WebhooksData{CSRF: csrfToken(c), Form: f}
	d.Form.Choices = webhooks.Events
	for _, e := range list {
		d.Items = append(d.Items, webhookItem(i18n.From(ctx), pr, e))
	}
	return p.render(c, status, "webhooks.title", views.WebhooksPage(d))
}

func webhookItem(lang i18n.Lang, pr auth.Principal, e webhooks.Endpoint) views.WebhookItem {
	return views.WebhookItem{ID: e.ID.String(), URL: e.URL, Description: e.Description, Created: lang.DateTime(e.CreatedAt, pr.Location()),
		Events: e.Events, All: slices.Contains(e.Events, "*"), Enabled: e.Enabled, Failing: e.DisabledReason != nil}
}

// webhookInput reads the create and edit form: every field is sent, so
// an empty events list is the admin's choice (and refused).
func webhookInput(c echo.Context) (webhooks.Input, views.WebhookForm, error) {
	form, err := c.FormParams()
	if err != nil {
		return webhooks.Input{}, views.WebhookForm{}, apperr.BadRequest("msg.common.form_unreadable")
	}
	events := append([]string{}, form["events"]...)
	f := webhookForm(lastValue(form, "url"), lastValue(form, "description"), events)
	return webhooks.Input{URL: &f.URL, Description: &f.Description, Events: &events}, f, nil
}

// webhookForm is the create or edit form filled with an endpoint's values
// ("*" in events: every event).
func webhookForm(url, description string, events []string) views.WebhookForm {
	f := views.WebhookForm{URL: url, Description: description, Events: map[string]bool{}, Choices: webhooks.Events}
	for _, e := range events {
		if e == "*" {
			f.All = true
		} else {
			f.Events[e] = true
		}
	}
	return f
}

// errFormDone stops an action whose form was sent before: the first
// submission's page is opened instead.
var errFormDone = errors.New("form sent before")

// createWebhook registers an endpoint and answers with its page showing
// the secret, this once. The form's one-time token is claimed once the
// role may create (docs/web-app.md, "Sending a form twice"): a second
// submission of the same form creates nothing and opens the first one's
// endpoint, without its secret.
func (p *Pages) createWebhook(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	var (
		f     views.WebhookForm
		claim forms.Claim
	)
	claimed := false
	e, err := p.svc.Webhooks.Create(ctx, pr, func(in *webhooks.Input) error {
		var err error
		if *in, f, err = webhookInput(c); err != nil {
			return err
		}
		f.Action, f.Token = webhooksURL, c.FormValue("form_token")
		if claim, err = p.svc.Forms.Claim(ctx, pr, f.Token); err != nil {
			return err
		}
		if !claim.Fresh {
			return errFormDone
		}
		claimed = true
		return nil
	})
	if errors.Is(err, errFormDone) {
		p.flash(c, views.FlashInfo, "webhooks.already_created")
		return p.redirect(c, claim.Done)
	}
	if err != nil && claimed {
		if rerr := p.svc.Forms.Release(ctx, pr, claim); rerr != nil {
			return rerr
		}
	}
	if errs, ok := formErrors(i18n.From(ctx), err, "url"); ok {
		f.Errors = errs
		return p.showWebhooks(c, http.StatusUnprocessableEntity, f)
	}
	if err != nil {
		return err
	}
	if err := p.svc.Forms.Finish(ctx, pr, claim, webhookPageURL(e.ID.String())); err != nil {
		return err
	}
	return p.showWebhook(c, http.StatusCreated, e.ID, e.Secret, nil)
}

func (p *Pages) webhook(c echo.Context) error {
	return p.showWebhook(c, http.StatusOK, web.PathID(c, "id"), "", nil)
}

// showWebhook renders endpoint id's page: secret is a new secret to show
// once; form, when set, is a refused edit form to show again.
func (p *Pages) showWebhook(c echo.Context, status int, id uuid.UUID, secret string, form *views.WebhookForm) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang, loc := i18n.From(ctx), pr.Location()
	page := pageParam(c)
	e, list, err := p.svc.Webhooks.Deliveries(ctx, pr, id, func() (paging.Request, error) {
		return paging.Request{Number: page, Size: webhookDeliveriesPer}, nil
	})
	if err != nil {
		return err
	}
	d := views.WebhookData{CSRF: csrfToken(c), Endpoint: webhookItem(lang, pr, e), Secret: secret}
	if form != nil {
		d.Form = *form
	} else {
		d.Form = webhookForm(e.URL, e.Description, e.Events)
	}
	d.Form.Action = webhookPageURL(e.ID.String())
	for _, r := range list.Items {
		row := views.WebhookDeliveryItem{ID: r.ID.String(), Event: r.Event, Status: r.Status, Attempts: r.Attempts,
			When: lang.DateTime(r.CreatedAt, loc)}
		if r.LastAttemptAt != nil {
			row.When = lang.DateTime(*r.LastAttemptAt, loc)
		}
		if r.StatusCode != nil {
			row.Code = strconv.Itoa(*r.StatusCode)
		}
		if r.DurationMS != nil {
			row.Duration = lang.T("webhooks.log.ms", "ms", strconv.Itoa(*r.DurationMS))
		}
		if r.Error != nil {
			row.Error = *r.Error
		}
		if r.NextAttemptAt != nil && r.Status == "pending" && r.Attempts > 0 {
			row.NextAttempt = lang.DateTime(*r.NextAttemptAt, loc)
		}
		d.Deliveries = append(d.Deliveries, row)
	}
	d.Pager = pager(list, func(n int) string {
		return webhookPageURL(e.ID.String()) + "?page=" + strconv.Itoa(n)
	})
	return p.render(c, status, "webhooks.endpoint_title", views.WebhookPage(d))
}

// saveWebhook saves the edit form; refused values come back in the form
// with the service's messages.
func (p *Pages) saveWebhook(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	var f views.WebhookForm
	_, err := p.svc.Webhooks.Update(ctx, pr, id, func(in *webhooks.Input) error {
		var err error
		*in, f, err = webhookInput(c)
		return err
	})
	if errs, ok := formErrors(i18n.From(ctx), err, "url"); ok {
		f.Errors = errs
		return p.showWebhook(c, http.StatusUnprocessableEntity, id, "", &f)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "webhooks.saved")
	return p.redirect(c, webhookPageURL(id.String()))
}

// setWebhookEnabled disables or enables the endpoint (enabled=true|false).
func (p *Pages) setWebhookEnabled(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	on := c.FormValue("enabled") == "true"
	if _, err := p.svc.Webhooks.Update(ctx, pr, id, func(in *webhooks.Input) error {
		in.Enabled = &on
		return nil
	}); err != nil {
		return err
	}
	msg := "webhooks.disabled_now"
	if on {
		msg = "webhooks.enabled_now"
	}
	p.flash(c, views.FlashSuccess, msg)
	return p.redirect(c, webhookPageURL(id.String()))
}

// rotateWebhookSecret gives the endpoint a new secret and answers with its
// page showing it, this once.
func (p *Pages) rotateWebhookSecret(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	e, err := p.svc.Webhooks.RotateSecret(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return p.showWebhook(c, http.StatusOK, e.ID, e.Secret, nil)
}

func (p *Pages) testWebhook(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	if _, err := p.svc.Webhooks.SendTest(ctx, pr, id); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "webhooks.test_queued")
	return p.redirect(c, webhookPageURL(id.String()))
}

func (p *Pages) redeliverWebhook(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	if _, err := p.svc.Webhooks.Redeliver(ctx, pr, id, web.PathID(c, "delivery_id")); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "webhooks.redelivery_queued")
	return p.redirect(c, webhookPageURL(id.String()))
}

// confirmDeleteWebhook asks before deleting the endpoint (admins only).
func (p *Pages) confirmDeleteWebhook(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	e, err := p.svc.Webhooks.Get(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, "webhooks.delete.title", views.DeleteWebhook(views.DeleteWebhookData{
		URL: e.URL, Action: webhookPageURL(e.ID.String()) + "/delete",
		CSRF: csrfToken(c), CancelURL: webhookPageURL(e.ID.String()),
	}))
}

// deleteWebhook deletes the endpoint and its delivery log, as DELETE
// /api/v0/webhooks/{id} does, and returns to the list.
func (p *Pages) deleteWebhook(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	e, err := p.svc.Webhooks.Delete(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "webhooks.deleted", "url", e.URL)
	return p.redirect(c, webhooksURL)
}
