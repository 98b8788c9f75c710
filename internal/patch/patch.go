// Package patch reads a partial update: a JSON object whose keys are the
// fields to change. A missing key leaves a field as it is; null (or an
// empty string) clears an optional one. Drivers, vehicles and trailers are
// created and changed this way, by the API's bodies and the pages' forms
// alike: each area keeps the table of its fields and their rules (a Spec
// per field), this package the reading of values and the messages every
// area shares (docs/errors.md).
package patch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/textin"
)

// Input is a create or update request as the client sent it: field name →
// raw JSON value.
type Input struct {
	Fields map[string]json.RawMessage
}

// Set adds a field value (for callers that build an Input in Go, such as
// the web pages and tests).
func (in *Input) Set(field string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode field %s: %w", field, err)
	}
	if in.Fields == nil {
		in.Fields = map[string]json.RawMessage{}
	}
	in.Fields[field] = raw
	return nil
}

// Has reports whether the request sent the field (null included).
func (in Input) Has(name string) bool { _, ok := in.Fields[name]; return ok }

// Facts are what values are judged against besides the request itself:
// today in the company's time zone (a birth or registration date cannot be
// later) and the company's country, in which a phone number written
// without its international prefix is read.
type Facts struct {
	Today   civil.Date
	Country string
}

// Field is one request value with the names used in messages.
type Field struct {
	Name  string          // JSON name: "first_name"
	Label i18n.Message    // the field's name in messages: "first name"
	Raw   json.RawMessage // the value as sent
	Facts Facts
}

// Null reports whether the value is JSON null.
func (f Field) Null() bool { return bytes.Equal(bytes.TrimSpace(f.Raw), []byte("null")) }

// Spec applies one request field to a record, adding a message to v when
// the value is not acceptable.
type Spec[R any] func(r *R, f Field, v *apperr.Validation)

// Label is the field's name as messages show it: the catalogue's
// "field.<name>" ("first_name" → "first name").
func Label(name string) i18n.Message { return i18n.M("field." + name) }

// Required adds "required" for each of names the request did not send.
func Required(in Input, names []string, v *apperr.Validation) {
	for _, name := range names {
		if !in.Has(name) {
			v.Add(name, "msg.common.required", "field", Label(name))
		}
	}
}

// Apply runs the spec of every field sent, in name order so messages come
// in a stable order. A field without a spec is ignored (read-only fields
// of an object the client read back); accept, when not nil, may refuse a
// field with its own message.
func Apply[R any](in Input, r *R, specs map[string]Spec[R], facts Facts, v *apperr.Validation, accept func(name string) bool) {
	names := make([]string, 0, len(in.Fields))
	for name := range in.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		spec, ok := specs[name]
		if !ok || (accept != nil && !accept(name)) {
			continue
		}
		spec(r, Field{Name: name, Label: Label(name), Raw: in.Fields[name], Facts: facts}, v)
	}
}

// String decodes a JSON string, trimmed and without bidi control
// characters (docs/security.md: a value cannot reorder the text around it
// where it is shown). ok is false, with a message added, when the value is
// not a string. null gives "", true.
func String(f Field, v *apperr.Validation) (string, bool) {
	if f.Null() {
		return "", true
	}
	var s string
	if err := json.Unmarshal(f.Raw, &s); err != nil {
		v.Add(f.Name, "msg.common.not_string", "field", f.Label)
		return "", false
	}
	return strings.TrimSpace(textin.StripBidi(s)), true
}

// TooLong reports whether s has more than max characters; max 0 means no
// limit.
func TooLong(s string, max int) bool { return max > 0 && utf8.RuneCountInString(s) > max }

// RequiredString is a text that cannot be empty, at most max characters.
func RequiredString[R any](max int, ptr func(*R) *string) Spec[R] {
	return func(r *R, f Field, v *apperr.Validation) {
		s, ok := String(f, v)
		switch {
		case !ok:
		case s == "":
			v.Add(f.Name, "msg.common.required", "field", f.Label)
		case TooLong(s, max):
			v.Add(f.Name, "msg.common.too_long", "field", f.Label, "max", max)
		default:
			*ptr(r) = s
		}
	}
}

// OptionalString is a text of at most max characters (0: no limit); null
// or "" clears it.
func OptionalString[R any](max int, ptr func(*R) **string) Spec[R] {
	return func(r *R, f Field, v *apperr.Validation) {
		s, ok := String(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(r) = nil
		case TooLong(s, max):
			v.Add(f.Name, "msg.common.too_long", "field", f.Label, "max", max)
		default:
			*ptr(r) = &s
		}
	}
}

// UUID is an optional id; null or "" clears it.
func UUID[R any](ptr func(*R) **uuid.UUID) Spec[R] {
	return func(r *R, f Field, v *apperr.Validation) {
		s, ok := String(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(r) = nil
		default:
			id, err := uuid.Parse(s)
			if err != nil {
				v.Add(f.Name, "msg.common.uuid", "field", f.Label)
				return
			}
			*ptr(r) = &id
		}
	}
}

// Date decodes an optional date (YYYY-MM-DD): nil for null or "", ok false
// (with a message) when it is not a date.
func Date(f Field, v *apperr.Validation) (*civil.Date, bool) {
	if f.Null() {
		return nil, true
	}
	var s string
	if err := json.Unmarshal(f.Raw, &s); err != nil {
		v.Add(f.Name, "msg.common.not_date", "field", f.Label)
		return nil, false
	}
	if s = strings.TrimSpace(s); s == "" {
		return nil, true
	}
	date, err := civil.Parse(s)
	if err != nil {
		v.Add(f.Name, "msg.common.not_date", "field", f.Label)
		return nil, false
	}
	return &date, true
}

// Tags bound a record's tags (docs/drivers-and-documents.md): drivers',
// vehicles' and trailers' alike.
const (
	MaxTags      = 20
	MaxTagLength = 40
)

// TagPattern is a tag: lower-case letters, digits, _ and -, the form a
// rule's required_for and the lists' tag filter use.
var TagPattern = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)

// Tags replaces the tags as a whole: an array of strings (null or []
// clears them), each trimmed and lower-cased, repeats dropped; more than
// MaxTags, or a tag that is empty, longer than MaxTagLength or has other
// characters than letters, digits, _ and -, is refused.
func Tags[R any](ptr func(*R) *[]string) Spec[R] {
	return func(r *R, f Field, v *apperr.Validation) {
		if f.Null() {
			*ptr(r) = []string{}
			return
		}
		var raw []string
		if err := json.Unmarshal(f.Raw, &raw); err != nil {
			v.Add(f.Name, "msg.drivers.tags")
			return
		}
		tags := []string{}
		for i, t := range raw {
			t = strings.ToLower(strings.TrimSpace(t))
			if !TagPattern.MatchString(t) {
				v.Add(fmt.Sprintf("tags.%d", i), "msg.drivers.tag", "max", MaxTagLength)
				return
			}
			if !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
		if len(tags) > MaxTags {
			v.Add(f.Name, "msg.drivers.too_many_tags", "max", MaxTags)
			return
		}
		*ptr(r) = tags
	}
}
