package pages

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
)

// TestRefusalOf: every kind of service error maps to one status and its
// messages by field, in the user's language, and only refusals of the
// request (not failures, not refusals of the caller) are shown in a form.
func TestRefusalOf(t *testing.T) {
	lang := i18n.CS
	invalid := apperr.Invalid("email", "msg.common.required", "field", i18n.M("field.email"))
	_, invalidFields := invalid.(*apperr.Error).In(lang)
	notFound := fmt.Errorf("read driver: %w", apperr.NotFound("msg.common.not_found.driver"))
	for _, tc := range []struct {
		name      string
		err       error
		uploadMax int64
		status    int
		fields    map[string][]string
		ok        bool
	}{
		{"nil", nil, noFile, 0, nil, false},
		{"failure", errors.New("boom"), noFile, http.StatusInternalServerError, nil, false},
		{"invalid", invalid, noFile, http.StatusUnprocessableEntity, invalidFields, true},
		{"gone", notFound, noFile, http.StatusNotFound, map[string][]string{"": {lang.T("msg.common.not_found.driver")}}, true},
		{"too large", apperr.PayloadTooLarge("msg.documents.file_too_large", "max", 1<<20), 1 << 20, http.StatusRequestEntityTooLarge,
			map[string][]string{"file": {lang.T("upload.too_large", "size", formatSize(lang, 1<<20))}}, true},
		{"unsupported", apperr.UnsupportedMediaType("msg.documents.file_type"), 1 << 20, http.StatusUnsupportedMediaType,
			map[string][]string{"file": {lang.T("upload.unsupported")}}, true},
		{"too large without a file", apperr.PayloadTooLarge("msg.common.body_too_large", "max", 10), noFile, http.StatusRequestEntityTooLarge,
			map[string][]string{"": {lang.T("msg.common.body_too_large", "max", 10)}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := refusalOf(lang, tc.err, tc.uploadMax)
			if ok != tc.ok || r.status != tc.status || !reflect.DeepEqual(r.fields, tc.fields) {
				t.Errorf("got %d %v %v, want %d %v %v", r.status, r.fields, ok, tc.status, tc.fields, tc.ok)
			}
		})
	}
	r, ok := refusalOf(lang, apperr.AccessDenied(), noFile)
	if ok || !r.caller || r.status != http.StatusForbidden || r.text() != lang.T("msg.common.access_denied") {
		t.Errorf("access denied: %+v %v; want the caller refused, not in the form, with its message", r, ok)
	}
}
