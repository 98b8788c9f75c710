// Package apperr holds the typed errors every domain package returns. The web
// layer maps each Kind to one HTTP status and error name (docs/errors.md) in one
// place, so services never think in HTTP.
//
// An error's message is a key of the i18n catalogues with named arguments,
// never a sentence: every constructor takes (key, name, value, ...), the API
// shows the English text and the pages the user's language. A test walks
// the code and fails on a message that is not a catalogue key.
package apperr

import (
	"errors"
	"sort"

	"github.com/konvoj/konvoj/internal/i18n"
)

// Kind classifies a failure the caller can act on.
type Kind int

// The kinds, in the order the API checks them (docs/errors.md).
const (
	KindInternal Kind = iota
	KindUnauthorized
	KindForbidden
	KindNotFound
	KindAccessDenied
	KindBadRequest
	KindValidation
	KindDuplicate
	KindConflict
	KindPayloadTooLarge
	KindUnsupportedMediaType
	// KindRequestTimeout: the request body stopped arriving fast enough
	// and the server cut it off (docs/security.md, "Timeouts").
	KindRequestTimeout
	KindNotImplemented
)

// Error is a domain error with a message meant for the caller.
type Error struct {
	Kind Kind
	// Text is the message as a catalogue key with its arguments.
	Text i18n.Message
	// Message is Text in English: the API's message and the logs'.
	Message string
	// FieldTexts holds field → messages for validation errors (the field
	// keys are the API's field names).
	FieldTexts map[string][]i18n.Message
	// Fields is FieldTexts in English, as the API shows them.
	Fields map[string][]string
	// Body holds extra keys of the API's error body: a conflict names the
	// record in the way by its id (a transport unit's unit_id).
	Body map[string]any
	// Err is the underlying cause, kept for logs, never shown to callers.
	Err error
}

// With adds the key to the API's error body.
func (e *Error) With(key string, value any) *Error {
	if e.Body == nil {
		e.Body = map[string]any{}
	}
	e.Body[key] = value
	return e
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is(err, apperr.ErrNotFound) match any error of that kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Text.Key == "" && t.FieldTexts == nil && t.Kind == e.Kind
}

// In renders the error's message and field messages in a language.
func (e *Error) In(l i18n.Lang) (message string, fields map[string][]string) {
	if len(e.FieldTexts) == 0 {
		return l.Text(e.Text), nil
	}
	fields = make(map[string][]string, len(e.FieldTexts))
	for f, msgs := range e.FieldTexts {
		for _, m := range msgs {
			fields[f] = append(fields[f], l.Text(m))
		}
	}
	return summary(l, fields), fields
}

// Sentinels for errors.Is checks; match by kind only.
var (
	ErrNotFound     = &Error{Kind: KindNotFound}
	ErrAccessDenied = &Error{Kind: KindAccessDenied}
	ErrForbidden    = &Error{Kind: KindForbidden}
	ErrConflict     = &Error{Kind: KindConflict}
	ErrDuplicate    = &Error{Kind: KindDuplicate}
	ErrValidation   = &Error{Kind: KindValidation}
	ErrBadRequest   = &Error{Kind: KindBadRequest}
)

// KindOf returns the kind of err, KindInternal when it is not an *Error.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// New builds an error of a kind with a message key and its arguments as
// name/value pairs.
func New(kind Kind, key string, args ...any) *Error {
	m := i18n.M(key, args...)
	return &Error{Kind: kind, Text: m, Message: i18n.EN.Text(m)}
}

// Wrap is New keeping cause for the logs.
func Wrap(cause error, kind Kind, key string, args ...any) *Error {
	e := New(kind, key, args...)
	e.Err = cause
	return e
}

// NotFound says the record does not exist (or is soft-deleted); key names
// the record ("msg.common.not_found.driver").
func NotFound(key string, args ...any) error { return New(KindNotFound, key, args...) }

// AccessDenied says the record belongs to another company or another driver.
func AccessDenied() error { return New(KindAccessDenied, "msg.common.access_denied") }

// Forbidden says the caller's role may not do this kind of action.
func Forbidden() error { return New(KindForbidden, "msg.common.forbidden") }

// Forbiddenf is Forbidden with a specific message.
func Forbiddenf(key string, args ...any) error { return New(KindForbidden, key, args...) }

// Conflict says a state rule forbids the action.
func Conflict(key string, args ...any) error { return New(KindConflict, key, args...) }

// Duplicate says a unique value is already taken.
func Duplicate(key string, args ...any) error { return New(KindDuplicate, key, args...) }

// BadRequest says the request itself is malformed (JSON, query values).
func BadRequest(key string, args ...any) error { return New(KindBadRequest, key, args...) }

// Unauthorized says the token is missing or invalid.
func Unauthorized(key string, args ...any) error { return New(KindUnauthorized, key, args...) }

// PayloadTooLarge says an upload is over the size limit.
func PayloadTooLarge(key string, args ...any) error {
	return New(KindPayloadTooLarge, key, args...)
}

// UnsupportedMediaType says a file's type is not allowed.
func UnsupportedMediaType(key string, args ...any) error {
	return New(KindUnsupportedMediaType, key, args...)
}

// Validation collects field messages; the zero value is ready to use.
type Validation struct {
	fields map[string][]i18n.Message
	order  []string // the fields in the order their first message came
}

// Add records a message (a key and its arguments) for a field.
func (v *Validation) Add(field, key string, args ...any) {
	if v.fields == nil {
		v.fields = map[string][]i18n.Message{}
	}
	if _, ok := v.fields[field]; !ok {
		v.order = append(v.order, field)
	}
	v.fields[field] = append(v.fields[field], i18n.M(key, args...))
}

// Has reports whether the field already has a message (so later checks on
// the same field can be skipped).
func (v *Validation) Has(field string) bool { return len(v.fields[field]) > 0 }

// Err returns the collected ValidationError, or nil when there is none.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	e := &Error{Kind: KindValidation, FieldTexts: v.fields}
	e.Message, e.Fields = e.In(i18n.EN)
	return e
}

// Invalid builds a one-field validation error.
func Invalid(field, key string, args ...any) error {
	var v Validation
	v.Add(field, key, args...)
	return v.Err()
}

// summary is the top-level message: the first field's first message, plus a
// count of the others, as Laravel-style clients expect.
func summary(l i18n.Lang, fields map[string][]string) string {
	keys := make([]string, 0, len(fields))
	n := 0
	for k, msgs := range fields {
		keys = append(keys, k)
		n += len(msgs)
	}
	sort.Strings(keys)
	first := fields[keys[0]][0]
	switch n {
	case 1:
		return first
	case 2:
		return l.T("msg.common.and_one_more", "message", first)
	}
	return l.T("msg.common.and_more", "message", first, "count", n-1)
}

// Messages returns the collected messages by field (nil when none), for
// callers that report them row by row (the driver import).
func (v *Validation) Messages() map[string][]i18n.Message { return v.fields }

// Fields names the fields with messages in the order their first message
// came (the order of the checks), for callers that list them one by one.
func (v *Validation) Fields() []string { return v.order }
