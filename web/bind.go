package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/textin"
)

// Bind is the one reader of a request body into a service's input struct
// (in, a pointer), for both fronts, by the struct's json tags: on the API
// the JSON object of the OpenAPI description (bindJSON), on the pages the form whose
// fields have the same names (bindForm). Call it from the read function a
// service method takes, so that it reads after the service's checks.
func Bind(c echo.Context, in any) error {
	if isAPI(c.Request().URL.Path) {
		return bindJSON(c, in)
	}
	return bindForm(c, in)
}

// bindForm fills in from the form: each field the form sends (its last
// value) sets the struct's field of that json name, as the JSON would:
// text (string, *string) as it was typed, a checkbox (bool, *bool) as
// "true", "1" or "on", an amount (money.Input) as people type one
// (FormAmount). What the form does not send stays as it is, so an edit
// form's save is a partial update; values a form cannot send (JSON
// documents, lists) are left to the page. A form that does not parse is
// 400, a text with a NUL or invalid UTF-8 422 (CheckText).
func bindForm(c echo.Context, in any) error {
	form, err := c.FormParams()
	if err != nil {
		return apperr.BadRequest("msg.common.form_unreadable")
	}
	if err := CheckText(form); err != nil {
		return err // as bindJSON's checkJSONText
	}
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("bind a form into %T: not a pointer to a struct", in)
	}
	v = v.Elem()
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		sent := form[name]
		if name == "" || name == "-" || len(sent) == 0 {
			continue
		}
		s := sent[len(sent)-1]
		switch f := v.Field(i).Addr().Interface().(type) {
		case *string:
			*f = s
		case **string:
			*f = &s
		case *bool:
			*f = checked(s)
		case **bool:
			b := checked(s)
			*f = &b
		case *money.Input:
			*f = money.TextInput(FormAmount(s))
		}
	}
	return nil
}

// checked reads a checkbox's value.
func checked(s string) bool { return s == "true" || s == "1" || s == "on" }

// FormAmount reads an amount as people type it in either language:
// spaces (also no-break ones) between thousands dropped, a decimal comma
// taken as a point ("1 250,50" is 1250.50).
func FormAmount(s string) string {
	s = strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "").Replace(strings.TrimSpace(s))
	if !strings.Contains(s, ".") {
		s = strings.Replace(s, ",", ".", 1)
	}
	return s
}

// maxJSONBody caps JSON request bodies (the server's cap of every body
// that is not an upload); uploads have their own limit.
const maxJSONBody = MaxBodyBytes

// bindJSON decodes a JSON object body into v. Malformed JSON, a wrong
// content type or a body that is not an object is 400 BadRequest.
func bindJSON(c echo.Context, v any) error {
	req := c.Request()
	if ct := req.Header.Get(echo.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return apperr.BadRequest("msg.api.json_content_type")
		}
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxJSONBody+1))
	if err != nil {
		if apperr.KindOf(err) != apperr.KindInternal {
			return err // too large, or cut off by the body deadline
		}
		return apperr.BadRequest("msg.api.body_unreadable")
	}
	if len(body) > maxJSONBody {
		return apperr.PayloadTooLarge("msg.common.body_too_large", "max", maxJSONBody)
	}
	if !utf8.Valid(body) {
		// Invalid UTF-8 inside a string becomes a NUL escape, which the text
		// check below reports for its field; outside a string the body is
		// not JSON (400).
		body = bytes.ToValidUTF8(body, []byte(`\u0000`))
	}
	trimmed := strings.TrimSpace(string(body))
	if trimmed == "" {
		trimmed = "{}"
	}
	if !strings.HasPrefix(trimmed, "{") {
		return apperr.BadRequest("msg.api.json_object")
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return apperr.Invalid(ute.Field, "msg.api.wrong_type", "field", ute.Field)
		}
		return apperr.BadRequest("msg.api.json_invalid")
	}
	if dec.More() {
		return apperr.BadRequest("msg.api.json_one_object")
	}
	return checkJSONText(trimmed)
}

// checkJSONText refuses a body with a NUL character or invalid UTF-8 in
// any key or string (docs/errors.md): 422 for the first such field, as a
// dotted path (metrics.0.name), before a service or PostgreSQL sees it.
func checkJSONText(body string) error {
	if !strings.Contains(body, `\u0000`) {
		return nil // a raw NUL byte is not valid JSON, so only the escape carries one
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return apperr.BadRequest("msg.api.json_invalid")
	}
	if field, bad := badJSONText(doc, ""); bad {
		return apperr.Invalid(field, "msg.common.text_invalid", "field", field)
	}
	return nil
}

// badJSONText walks a decoded JSON value for the first refused text.
func badJSONText(v any, path string) (string, bool) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case string:
		return path, textin.Bad(v)
	case []any:
		for i, e := range v {
			if f, bad := badJSONText(e, join(strconv.Itoa(i))); bad {
				return f, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if textin.Bad(k) {
				return join(strings.ToValidUTF8(strings.ReplaceAll(k, "\x00", ""), "")), true
			}
			if f, bad := badJSONText(v[k], join(k)); bad {
				return f, true
			}
		}
	}
	return "", false
}
