// Package phones reads phone numbers as people write them and stores them
// in one form, E.164 ("+420777123456"), with the numbering plans of
// libphonenumber (github.com/nyaruka/phonenumbers). Every phone field of
// Konvoj goes through Normalize (docs/drivers-and-documents.md, "Phone
// numbers").
package phones

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Problem says why a text is not stored as a phone number.
type Problem int

const (
	// OK: the number is valid and was normalised.
	OK Problem = iota
	// NotANumber: letters or other characters than digits, spaces and
	// + - ( ) . /.
	NotANumber
)

// Normalize reads text ("+420 777 123 456", "00420 777 123 456", or
// "777 123 456" with country "CZ") and returns the number in E.164 when
// the numbering plans know it. country is the two-letter code of the
// country a number without its prefix is read in (the company's; "" for
// none). Digits the plans do not know (a new range, an extension, a number
// without its prefix and no country to read it in) are kept as written,
// trimmed: a product that refuses a real driver's real number is worse
// than one that keeps it unformatted. Only what cannot be a phone number
// at all (letters, other characters) is refused.
func Normalize(text, country string) (string, Problem) {
	s := strings.TrimSpace(text)
	if s == "" || !writtenLikeANumber(s) {
		return "", NotANumber
	}
	international := s
	if strings.HasPrefix(s, "00") {
		international = "+" + strings.TrimPrefix(s, "00")
	}
	region := strings.ToUpper(country)
	if strings.HasPrefix(international, "+") {
		region = ""
	} else if region == "" {
		return s, OK
	}
	n, err := phonenumbers.Parse(international, region)
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return s, OK
	}
	return phonenumbers.Format(n, phonenumbers.E164), OK
}

// writtenLikeANumber accepts digits, white space and the separators people
// type between them, with at most one + and only in front. Letters are
// refused, although the library would read them as a keypad's digits
// ("1-800-FLOWERS"): here they are a typo.
func writtenLikeANumber(s string) bool {
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == '+':
			if i != 0 {
				return false
			}
		case r == ' ' || r == '\u00a0' || r == '\t' || r == '-' || r == '(' || r == ')' || r == '.' || r == '/':
		default:
			return false
		}
	}
	return digits > 0
}

// Display writes a stored number for people, grouped as its country writes
// it internationally ("+420 777 123 456"); a value that is not a valid
// number (stored before numbers were checked) is shown as it is.
func Display(stored string) string {
	n, err := phonenumbers.Parse(stored, "")
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return stored
	}
	return phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
}
