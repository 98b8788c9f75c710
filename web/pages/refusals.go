package pages

import (
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web"
)

// A refusal is a service error as every page shows it (docs/errors.md):
// the status the page answers with, the API's for the same error, and the
// messages by field in the user's language; the field "" holds what is
// about the form (or the row) as a whole.
type refusal struct {
	status int
	// message is the error's message in the language; a validation
	// error's sums up its field messages (the error page says it).
	message string
	fields  map[string][]string
	// caller: a refusal of the caller (401, 403: the role, another
	// company's or another driver's record), which a form never shows, as
	// that would show the record; the error page says it.
	caller bool
}

// noFile is the upload cap of a form that takes no file: a body too large
// or of a type it does not take is the error page, not a message beside a
// file input that is not there.
const noFile = 0

// refusalOf maps any error to what a page shows, the one place the pages
// do it: field messages (422) at their fields; a file too large (413) or
// of a type not taken (415) at the file input, saying the form's upload cap
// (uploadMax, noFile for a form without a file); a request the service
// could not read (400) or a state rule, a duplicate, a record gone (409,
// 404) about the form as a whole. ok reports whether the form shows it: not
// for a failure (no service error) nor for a refusal of the caller, whose
// messages are still there for a flash or a row (refusal.text).
func refusalOf(lang i18n.Lang, err error, uploadMax int64) (r refusal, ok bool) {
	if err == nil {
		return refusal{}, false
	}
	var e *apperr.Error
	status, _, unexpected := web.ToBody(err, "")
	if unexpected || !errors.As(err, &e) {
		return refusal{status: status}, false
	}
	msg, fields := e.In(lang)
	r = refusal{status: status, message: msg, fields: map[string][]string{}}
	switch e.Kind {
	case apperr.KindValidation:
		for f, msgs := range fields {
			r.fields[f] = msgs
		}
		return r, true
	case apperr.KindPayloadTooLarge, apperr.KindUnsupportedMediaType:
		if uploadMax == noFile {
			r.fields[""] = []string{msg}
			return r, false
		}
		if e.Kind == apperr.KindPayloadTooLarge {
			r.fields["file"] = []string{lang.T("upload.too_large", "size", formatSize(lang, uploadMax))}
		} else {
			r.fields["file"] = []string{lang.T("upload.unsupported")}
		}
		return r, true
	case apperr.KindBadRequest:
		if msg == "" && uploadMax != noFile {
			msg = lang.T("upload.failed")
		}
		r.fields[""] = []string{msg}
		return r, true
	case apperr.KindConflict, apperr.KindDuplicate, apperr.KindNotFound:
		r.fields[""] = []string{msg}
		return r, true
	case apperr.KindForbidden, apperr.KindAccessDenied, apperr.KindUnauthorized:
		r.fields[""] = []string{msg}
		r.caller = true
		return r, false
	}
	r.fields[""] = []string{msg}
	return r, false
}

// invalid reports whether the refusal is of values sent (422), each
// message at its field: a list page says them and lists without those
// values of its address.
func (r refusal) invalid() bool { return r.status == http.StatusUnprocessableEntity }

// messages are the refusal's messages in one list: the form's first, then
// each field's in the fields' order.
func (r refusal) messages() []string {
	names := make([]string, 0, len(r.fields))
	for f := range r.fields {
		names = append(names, f)
	}
	sort.Strings(names)
	var out []string
	for _, f := range names {
		out = append(out, r.fields[f]...)
	}
	return out
}

// text is the refusal in one line, for a row or a flash.
func (r refusal) text() string { return strings.Join(r.messages(), " ") }

// refusalText is err in one line in the language, for a row or a flash.
func refusalText(lang i18n.Lang, err error) string {
	r, _ := refusalOf(lang, err, noFile)
	return r.text()
}

// refusedFormAddress is the address a refused form's answer keeps in the
// browser (docs/web-app.md, "Refused forms"): the page the form was on, not
// the address it posted to, which may answer POST only, so a reload, a
// bookmark or the language switch opens the page again. The page is the
// request's Referer when it is of this site: every form of the pages is
// refused by showing the page it was on again, with its messages. "" when
// the request is no refused post (a GET, a 2xx or 5xx answer) or the
// browser did not say where the form was. htmx forms post without changing
// the address, so only plain forms need it; static/forms.js sets it.
func refusedFormAddress(c echo.Context, status int) string {
	req := c.Request()
	if req.Method == http.MethodGet || req.Method == http.MethodHead || status < 400 || status >= 500 {
		return ""
	}
	ref, err := url.Parse(req.Referer())
	if err != nil || ref.Host == "" || ref.Host != req.Host {
		return ""
	}
	at := safeNext(ref.RequestURI())
	if at == req.URL.RequestURI() {
		return ""
	}
	return at
}
