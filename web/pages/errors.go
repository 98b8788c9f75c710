package pages

import (
	"errors"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// RenderError is the server's HTML error page for every non-API path: what
// happened and what to do, in the person's language. For an htmx request
// the error card replaces the page's main content instead. app.New gives it
// to web.NewServer (a web.ErrorPageRenderer).
func (p *Pages) RenderError(c echo.Context, status int, body web.ErrorBody, err error) error {
	if _, ok := principalOf(c); !ok && status == http.StatusNotFound {
		// An unknown path runs no route middleware: find the caller so the
		// page keeps the navigation and the language.
		if pr, err := p.resolve(c); err == nil {
			web.SetPrincipal(c, pr)
		}
	}
	lang := p.langOf(c)
	ctx := i18n.WithLang(c.Request().Context(), lang)
	c.SetRequest(c.Request().WithContext(ctx))
	_, signedIn := principalOf(c)
	d := views.ErrorData{Status: status, SignedIn: signedIn, RequestID: body.RequestID}
	if body.RetryAfter != nil {
		d.RetryAfter = *body.RetryAfter
	}
	switch status {
	case http.StatusBadRequest, http.StatusConflict, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		// The service's message says what was wrong with the input.
		r, _ := refusalOf(lang, err, noFile)
		d.Detail = r.message
		if r.invalid() {
			d.Detail = strings.Join(append([]string{r.message}, r.messages()...), " ")
		}
	case http.StatusForbidden:
		// The caller's account itself is refused: say why.
		switch e := (*apperr.Error)(nil); {
		case !errors.As(err, &e):
		case e.Text.Key == "msg.auth.no_company":
			d.Detail = lang.T("error.403.no_company")
		case e.Text.Key == "msg.auth.deactivated", e.Text.Key == "msg.auth.other_company":
			d.Detail = lang.Text(e.Text)
		}
	}
	setSecurityHeaders(c.Response().Header())
	if isHTMX(c) {
		c.Response().Header().Set("HX-Retarget", "#main")
		c.Response().Header().Set("HX-Reswap", "innerHTML")
		return p.write(c, status, views.ErrorPage(d), ctx)
	}
	sh := p.shell(c, status, lang.T("error.title", "status", status))
	return p.write(c, status, views.Page(sh), templ.WithChildren(ctx, views.ErrorPage(d)))
}
