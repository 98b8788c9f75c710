package web

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestTextErrors: values with NUL or invalid UTF-8 are a 422 for their
// field, and PostgreSQL's refusal of such a text is a 422, not a 500.
func TestTextErrors(t *testing.T) {
	if err := CheckText(url.Values{"a": {"ok"}, "b": {"Žluťoučký"}}); err != nil {
		t.Fatalf("good values refused: %v", err)
	}
	for _, vals := range []url.Values{{"search": {"x\x00"}}, {"search": {"\xff"}}, {"search": {"ok", "\x00"}}} {
		status, body, _ := ToBody(CheckText(vals), "r")
		if status != http.StatusUnprocessableEntity || body.Errors["search"] == nil {
			t.Errorf("%q: %d %+v", vals, status, body)
		}
	}
	for _, code := range []string{"22021", "22P05"} {
		status, body, unexpected := ToBody(fmt.Errorf("insert: %w", &pgconn.PgError{Code: code}), "r")
		if status != http.StatusUnprocessableEntity || body.Error != "ValidationError" || unexpected {
			t.Errorf("%s: %d %+v", code, status, body)
		}
	}
	if status, _, _ := ToBody(&pgconn.PgError{Code: "XX000"}, "r"); status != http.StatusInternalServerError {
		t.Errorf("another database error: %d", status)
	}
}
