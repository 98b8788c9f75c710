package web

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ContentDisposition is an attachment header carrying name (RFC 6266): a
// quoted ASCII fallback (accents dropped, other characters replaced) for
// old clients, and the exact name in UTF-8 as filename* (RFC 5987).
func ContentDisposition(name string) string {
	if name == "" {
		return `attachment; filename="download"`
	}
	return `attachment; filename="` + asciiFallback(name) + `"; filename*=UTF-8''` + percentEncode(name)
}

// asciiFallback spells name in printable ASCII: "řidičák.pdf" → "ridicak.pdf".
func asciiFallback(name string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(name) {
		switch {
		case unicode.Is(unicode.Mn, r): // a combining accent: drop it
		case r == '"' || r == '\\':
			b.WriteByte('_')
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "download"
	}
	return b.String()
}

// percentEncode encodes all but RFC 5987's attr-char as %XX of UTF-8 bytes.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
