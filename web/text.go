package web

import (
	"errors"
	"net/url"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/textin"
)

// CheckText refuses query or form values with a NUL character or invalid
// UTF-8 (docs/errors.md): 422 ValidationError for the first such field, in
// name order. The API's query reader and the pages' form reader call it,
// after the access checks, as part of reading the input.
func CheckText(values url.Values) error {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		bad := textin.Bad(name)
		for _, v := range values[name] {
			bad = bad || textin.Bad(v)
		}
		if bad {
			field := strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", ""), "")
			return apperr.Invalid(field, "msg.common.text_invalid", "field", field)
		}
	}
	return nil
}

// textError turns PostgreSQL's refusal of a text (22021: NUL or invalid
// byte sequence for UTF8; 22P05: a NUL in jsonb) into a 422 for input that
// reached the database by a path no reader checked: never a 500.
func textError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "22021" || pe.Code == "22P05") {
		return apperr.Invalid("input", "msg.common.text_invalid", "field", "input")
	}
	return err
}
