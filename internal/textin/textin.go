// Package textin holds the rules every text input meets before it reaches a
// service or PostgreSQL (docs/errors.md, docs/security.md): a NUL character
// or invalid UTF-8 is refused (422 ValidationError, never a 500 from the
// database), and bidi control characters are removed from names.
package textin

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bad reports whether s holds a NUL character or is not valid UTF-8.
func Bad(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

// isBidi: the Unicode bidi controls (embeddings, overrides, isolates and
// the directional marks).
func isBidi(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// StripBidi removes bidi control characters, so a name cannot reorder the
// text around it (a right-to-left override turning "gpj.exe" around).
func StripBidi(s string) string {
	if !strings.ContainsFunc(s, isBidi) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isBidi(r) {
			return -1
		}
		return r
	}, s)
}

// IsControl is true for control characters and invisible formatting
// characters (bidi overrides, zero-width characters).
func IsControl(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}
