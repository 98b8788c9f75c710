package export

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// FileName is a download's name (without extension) made of parts in
// plain ASCII letters, digits and dashes, so it reads the same in every
// program and inside a ZIP: letters lose their accents ("Jiří" → "Jiri",
// "Ștefan" → "Stefan"), Polish ł and Cyrillic are transliterated
// ("Łukasz" → "Lukasz", "Ґонта" → "Gonta"), and everything else between
// letters and digits becomes one dash. Parts are joined by dashes; a part
// left empty is dropped: FileName("DRV-0042", "Jiří Dvořák", "2026-11") is
// "DRV-0042-Jiri-Dvorak-2026-11".
func FileName(parts ...string) string {
	var b strings.Builder
	dash := false // a dash is due before the next letter or digit
	for _, part := range parts {
		for _, r := range norm.NFC.String(part) {
			s, ok := latin[r]
			if ok && s == "" {
				continue // a sign spelled as nothing (ь)
			}
			if !ok {
				s = ascii(r)
			}
			if s == "" {
				dash = b.Len() > 0
				continue
			}
			if dash {
				b.WriteByte('-')
				dash = false
			}
			b.WriteString(s)
		}
		dash = b.Len() > 0
	}
	return b.String()
}

// ascii is a letter or digit without its accents ("ř" → "r"), "" for
// anything else.
func ascii(r rune) string {
	var out []byte
	for _, c := range norm.NFD.String(string(r)) {
		if c < 0x80 && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			out = append(out, byte(c))
		}
	}
	return string(out)
}

// latin spells letters that lose no accent into ASCII: Polish ł, a few
// more Latin letters, and Ukrainian and Russian Cyrillic (Ukrainian's
// national transliteration, in its word-initial forms).
var latin = func() map[rune]string {
	m := map[rune]string{
		'ł': "l", 'Ł': "L", 'đ': "d", 'Đ': "D", 'ß': "ss", 'æ': "ae", 'Æ': "AE",
		'ø': "o", 'Ø': "O", 'œ': "oe", 'Œ': "OE", 'ı': "i", 'þ': "th", 'Þ': "Th",
	}
	cyrillic := map[rune]string{
		'а': "a", 'б': "b", 'в': "v", 'г': "h", 'ґ': "g", 'д': "d", 'е': "e", 'є': "ye", 'ж': "zh",
		'з': "z", 'и': "y", 'і': "i", 'ї': "yi", 'й': "y", 'к': "k", 'л': "l", 'м': "m", 'н': "n",
		'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f", 'х': "kh", 'ц': "ts",
		'ч': "ch", 'ш': "sh", 'щ': "shch", 'ь': "", 'ю': "yu", 'я': "ya",
		'ы': "y", 'э': "e", 'ё': "yo", 'ъ': "",
	}
	for r, s := range cyrillic {
		m[r] = s
		if s != "" {
			m[unicode.ToUpper(r)] = strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return m
}()
