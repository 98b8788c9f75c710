package apperr_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
)

// The 20 messages drivers meet most (uploads, document dates, their own
// contact and bank details, penalties, missing records, access, expired
// sign-ins), built as the services build them, render in every language:
// not empty, not the English text, no key or placeholder left, and the
// arguments filled in (numbers as given, field names and states in the
// reader's language).
func TestDriverMessagesInEveryLanguage(t *testing.T) {
	m := i18n.M
	cases := []struct {
		name string
		err  error
		// want are texts each rendering must hold: an argument's value, or a
		// key whose text in the same language must appear (a field's name).
		want []any
	}{
		{"upload too large", apperr.PayloadTooLarge("msg.documents.file_too_large", "max", 20971520), []any{"20971520"}},
		{"file type not allowed", apperr.UnsupportedMediaType("msg.documents.file_type"), []any{"PDF", "WebP"}},
		{"no file chosen", apperr.Invalid("file", "msg.common.required", "field", m("field.document.file")), []any{m("field.document.file")}},
		{"broken upload", apperr.Wrap(errors.New("unexpected EOF"), apperr.KindBadRequest, "msg.documents.body_broken"), nil},
		{"validity dates", apperr.Invalid("valid_until", "msg.documents.until_before_from"), nil},
		{"validity date format", apperr.Invalid("valid_from", "msg.common.date_iso", "field", m("field.document.valid_from")), []any{m("field.document.valid_from")}},
		{"document number too long", apperr.Invalid("number", "msg.common.too_long", "field", m("field.document.number"), "max", 100), []any{m("field.document.number"), "100"}},
		{"document number characters", apperr.Invalid("number", "msg.documents.number_chars"), nil},
		{"phone too long", apperr.Invalid("phone", "msg.common.too_long", "field", m("field.phone"), "max", 50), []any{m("field.phone"), "50"}},
		{"address not text", apperr.Invalid("residence_address", "msg.common.not_string", "field", m("field.residence_address")), []any{m("field.residence_address")}},
		{"IBAN", apperr.Invalid("iban", "msg.drivers.iban"), []any{"IBAN"}},
		{"SWIFT", apperr.Invalid("swift", "msg.drivers.swift"), []any{"SWIFT / BIC", "8", "11"}},
		{"bank country", apperr.Invalid("bank_country", "msg.common.country", "field", m("field.bank_country")), []any{m("field.bank_country")}},
		{"field a driver may not change", apperr.Forbiddenf("msg.drivers.self_edit_refused", "fields", "email, status"), []any{"email, status"}},
		{"penalty dispute not allowed", apperr.Conflict("msg.penalties.dispute_not_pending", "status", m("state.penalty.resolved")), []any{m("state.penalty.resolved")}},
		{"dispute reason missing", apperr.Invalid("dispute_reason", "msg.common.required", "field", m("field.finance.dispute_reason")), []any{m("field.finance.dispute_reason")}},
		{"not found", apperr.NotFound("msg.common.not_found.document"), nil},
		{"access denied", apperr.AccessDenied(), nil},
		{"role may not", apperr.Forbidden(), nil},
		{"session expired", apperr.Forbiddenf("msg.auth.form_expired"), nil},
	}
	if len(cases) != 20 {
		t.Fatalf("%d cases, want the 20 most common", len(cases))
	}
	for _, c := range cases {
		var e *apperr.Error
		if !errors.As(c.err, &e) {
			t.Fatalf("%s: not an apperr.Error", c.name)
		}
		english, _ := e.In(i18n.EN)
		if english != e.Message {
			t.Errorf("%s: the API message %q is not the English rendering %q", c.name, e.Message, english)
		}
		for _, l := range i18n.Langs {
			got, fields := e.In(l)
			for _, msgs := range fields {
				if len(msgs) != 1 || msgs[0] != got {
					t.Errorf("%s (%s): field messages %v differ from the message %q", c.name, l, msgs, got)
				}
			}
			switch {
			case strings.TrimSpace(got) == "":
				t.Errorf("%s (%s): empty", c.name, l)
			case l != i18n.EN && got == english:
				t.Errorf("%s (%s): still English: %q", c.name, l, got)
			case strings.ContainsAny(got, "{}") || strings.Contains(got, "msg.") || strings.Contains(got, "field."):
				t.Errorf("%s (%s): a key or placeholder is left: %q", c.name, l, got)
			}
			for _, w := range c.want {
				want, ok := w.(string)
				if msg, isMsg := w.(i18n.Message); isMsg {
					want, ok = l.Text(msg), true
				}
				if ok && !strings.Contains(got, want) {
					t.Errorf("%s (%s): %q does not hold %q", c.name, l, got, want)
				}
			}
		}
	}
}

// A validation error with several messages says the first and how many
// more, in each language.
func TestValidationSummary(t *testing.T) {
	var v apperr.Validation
	v.Add("phone", "msg.common.too_long", "field", i18n.M("field.phone"), "max", 50)
	v.Add("iban", "msg.drivers.iban")
	v.Add("swift", "msg.drivers.swift")
	var e *apperr.Error
	if !errors.As(v.Err(), &e) {
		t.Fatal("no validation error")
	}
	if e.Message != "The IBAN is not valid. (and 2 more errors)" || e.Fields["phone"][0] != "The phone may not be greater than 50 characters." {
		t.Errorf("English: %q, %v", e.Message, e.Fields)
	}
	if got, _ := e.In(i18n.CS); got != "IBAN není platný: zkontrolujte, že je opsaný celý a bez překlepu. (a další chyby: 2)" {
		t.Errorf("Czech summary: %q", got)
	}
	if !errors.Is(e, apperr.ErrValidation) || errors.Is(e, apperr.ErrNotFound) {
		t.Error("errors.Is must match by kind")
	}
}
