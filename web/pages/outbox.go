package pages

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The development outbox (docs/alerts.md, "Seeing the e-mails"): with
// AUTH_DEV_LOGIN, as under `make run`, admins and HR managers see every
// e-mail the company's outbox holds, sent or not, so a newcomer without an
// SMTP server sees what Konvoj would send. Production servers do not
// register it.

const outboxPerPage = 20

func (p *Pages) mountOutbox(r *web.Routes) {
	if !p.devLogin {
		return
	}
	r.GET("/dev/outbox", p.outbox)
	r.GET("/dev/outbox/:id/html", p.outboxHTML)
}

func (p *Pages) outbox(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	page := pageParam(c)
	mails, err := p.svc.Notifications.Outbox(ctx, pr, paging.Request{Number: page, Size: outboxPerPage})
	if err != nil {
		return err
	}
	lang, loc := i18n.From(ctx), pr.Location()
	d := views.OutboxData{SMTP: p.cfg.SMTPURL != "",
		Pager: pager(mails, func(n int) string { return "/dev/outbox?page=" + strconv.Itoa(n) })}
	for _, m := range mails.Items {
		it := views.OutboxItem{ID: m.ID.String(), Kind: m.Kind, Recipient: m.Recipient, Language: m.Language,
			Subject: m.Subject, Text: m.Text, Created: lang.DateTime(m.CreatedAt, loc), Attempts: m.Attempts}
		if m.SentAt != nil {
			it.Sent = lang.DateTime(*m.SentAt, loc)
		}
		if m.LastError != nil {
			it.LastError = *m.LastError
		}
		d.Items = append(d.Items, it)
	}
	return p.render(c, http.StatusOK, "devoutbox.title", views.OutboxPage(d))
}

// outboxHTML shows an e-mail's HTML part as a mail client would: alone,
// sandboxed (no script, no form, no request anywhere), with its own
// inline styles.
func (p *Pages) outboxHTML(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	html, err := p.svc.Notifications.OutboxHTML(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	return c.HTML(http.StatusOK, html)
}
