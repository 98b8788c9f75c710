package drivers

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
)

// cursor is the position after the last row of a page: the sort it belongs
// to, that row's sort key (as PostgreSQL's text form, nil for a null
// hire_date) and its id, the final tie-break.
type cursor struct {
	SortBy    string    `json:"s"`
	SortOrder string    `json:"o"`
	Key       *string   `json:"k"`
	ID        uuid.UUID `json:"i"`
}

// encodeCursor signs the cursor: base64url(JSON) "." base64url(HMAC-SHA256).
// Clients treat it as opaque; the signature stops them from forging keys.
func (s *Service) encodeCursor(c cursor) string {
	payload, _ := json.Marshal(c) // a struct of strings and a UUID always encodes
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.sign(body))
}

// decodeCursor checks the signature and the contents; anything wrong is 400.
func (s *Service) decodeCursor(raw string) (cursor, error) {
	invalid := apperr.BadRequest("msg.list.cursor")
	body, sig, ok := strings.Cut(raw, ".")
	if !ok {
		return cursor{}, invalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.sign(body)) {
		return cursor{}, invalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return cursor{}, invalid
	}
	var c cursor
	if err := json.Unmarshal(payload, &c); err != nil {
		return cursor{}, invalid
	}
	col, ok := sortColumns[c.SortBy]
	if !ok || (c.SortOrder != "asc" && c.SortOrder != "desc") || (c.Key == nil && !col.nullable) {
		return cursor{}, invalid
	}
	return c, nil
}

func (s *Service) sign(body string) []byte {
	m := hmac.New(sha256.New, s.cursorKey)
	m.Write([]byte("drivers.cursor.v1\x00"))
	m.Write([]byte(body))
	return m.Sum(nil)
}
