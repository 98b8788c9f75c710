// Package apperr holds the typed errors every domain package returns. The web
// layer maps each Kind to one HTTP status and error name (docs/errors.md) in one
// place, so services never think in HTTP.
package apperr

import (
	"errors"
	"fmt"
	"sort"
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
	KindNotImplemented
)

// Error is a domain error with a message meant for the caller.
type Error struct {
	Kind    Kind
	Message string
	// Fields holds field → messages for validation errors.
	Fields map[string][]string
	// Err is the underlying cause, kept for logs, never shown to callers.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is(err, apperr.ErrNotFound) match any error of that kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Fields == nil && t.Kind == e.Kind
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

// NotFound says the record does not exist (or is soft-deleted).
func NotFound(what string) error {
	return &Error{Kind: KindNotFound, Message: what + " not found."}
}

// AccessDenied says the record belongs to another company or another driver.
func AccessDenied() error {
	return &Error{Kind: KindAccessDenied, Message: "You do not have access to this resource."}
}

// Forbidden says the caller's role may not do this kind of action.
func Forbidden() error {
	return &Error{Kind: KindForbidden, Message: "Your role does not allow this action."}
}

// Forbiddenf is Forbidden with a specific message.
func Forbiddenf(format string, args ...any) error {
	return &Error{Kind: KindForbidden, Message: fmt.Sprintf(format, args...)}
}

// Conflict says a state rule forbids the action.
func Conflict(format string, args ...any) error {
	return &Error{Kind: KindConflict, Message: fmt.Sprintf(format, args...)}
}

// Duplicate says a unique value is already taken.
func Duplicate(format string, args ...any) error {
	return &Error{Kind: KindDuplicate, Message: fmt.Sprintf(format, args...)}
}

// BadRequest says the request itself is malformed (JSON, query values).
func BadRequest(format string, args ...any) error {
	return &Error{Kind: KindBadRequest, Message: fmt.Sprintf(format, args...)}
}

// Unauthorized says the token is missing or invalid.
func Unauthorized(msg string) error {
	return &Error{Kind: KindUnauthorized, Message: msg}
}

// PayloadTooLarge says an upload is over the size limit.
func PayloadTooLarge(format string, args ...any) error {
	return &Error{Kind: KindPayloadTooLarge, Message: fmt.Sprintf(format, args...)}
}

// UnsupportedMediaType says a file's type is not allowed.
func UnsupportedMediaType(format string, args ...any) error {
	return &Error{Kind: KindUnsupportedMediaType, Message: fmt.Sprintf(format, args...)}
}

// Validation collects field messages; the zero value is ready to use.
type Validation struct {
	fields map[string][]string
}

// Add records a message for a field.
func (v *Validation) Add(field, message string) {
	if v.fields == nil {
		v.fields = map[string][]string{}
	}
	v.fields[field] = append(v.fields[field], message)
}

// Has reports whether the field already has a message (so later checks on
// the same field can be skipped).
func (v *Validation) Has(field string) bool { return len(v.fields[field]) > 0 }

// Err returns the collected ValidationError, or nil when there is none.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Error{Kind: KindValidation, Message: summary(v.fields), Fields: v.fields}
}

// Invalid builds a one-field validation error.
func Invalid(field, message string) error {
	var v Validation
	v.Add(field, message)
	return v.Err()
}

// summary is the top-level message: the first field's first message, plus a
// count of the others, as Laravel-style clients expect.
func summary(fields map[string][]string) string {
	keys := make([]string, 0, len(fields))
	n := 0
	for k, msgs := range fields {
		keys = append(keys, k)
		n += len(msgs)
	}
	sort.Strings(keys)
	first := fields[keys[0]][0]
	if n == 1 {
		return first
	}
	if n == 2 {
		return fmt.Sprintf("%s (and 1 more error)", first)
	}
	return fmt.Sprintf("%s (and %d more errors)", first, n-1)
}
