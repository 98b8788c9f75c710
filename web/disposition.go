package web

import (
	"path"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/konvoj/konvoj/internal/textin"
	"github.com/konvoj/konvoj/internal/uploads"
)

// DownloadName is the name a download is offered under: the client's
// original name without control and bidi characters (a right-to-left
// override cannot disguise the extension), its extension replaced by the
// detected type's (docs/security.md), so a PDF uploaded as "x.html"
// downloads as "x.pdf". An unknown type keeps the name's extension.
func DownloadName(name, mimeType string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, textin.StripBidi(strings.ToValidUTF8(name, "")))
	name = strings.TrimSpace(name)
	ext, known := uploads.AllowedTypes[mimeType]
	if !known {
		return name
	}
	cur := strings.ToLower(path.Ext(name))
	if cur == "."+ext || (ext == "jpg" && cur == ".jpeg") {
		return name
	}
	stem := strings.TrimRight(strings.TrimSuffix(name, path.Ext(name)), ". ")
	if stem == "" {
		stem = "download"
	}
	return stem + "." + ext
}

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
