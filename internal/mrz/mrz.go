// Package mrz reads the machine readable zone of a travel document as ICAO
// Doc 9303 lays it out: TD3 (two lines of 44 characters, passports) and
// TD1 (three lines of 30, identity cards). It checks every check digit, so a
// zone misread by the phone's OCR or typed wrong is refused before its
// values are compared with the document's (docs/drivers-and-documents.md,
// "The MRZ").
package mrz

import (
	"errors"
	"strings"

	"github.com/konvoj/konvoj/internal/civil"
)

// Formats of the zone.
const (
	TD1 = "TD1" // identity cards: 3 × 30
	TD3 = "TD3" // passports: 2 × 44
)

// Parts a check digit covers, as CheckError names them.
const (
	PartNumber    = "number"
	PartBirthDate = "birth_date"
	PartExpiry    = "expiry"
	PartOptional  = "optional"
	PartComposite = "composite"
)

// ErrFormat: the text is not two lines of 44 or three lines of 30
// characters of A–Z, 0–9 and "<".
var ErrFormat = errors.New("mrz: not a TD1 or TD3 zone")

// CheckError is a check digit that does not match the characters it covers.
type CheckError struct {
	Part string // PartNumber, PartBirthDate, PartExpiry, PartOptional, PartComposite
}

func (e *CheckError) Error() string { return "mrz: wrong check digit of " + e.Part }

// Zone is what a checked zone says. Dates are as written, YYMMDD: the
// century is not in the zone.
type Zone struct {
	Format string
	// DocumentCode is "P", "I", "ID", "AC"… without the filler.
	DocumentCode string
	// Issuer and Nationality are the three-letter codes of Doc 9303 part 3
	// ("CZE", "D" for Germany), without filler.
	Issuer, Nationality string
	// Number is the document number without filler; a TD1 number longer
	// than 9 characters is joined from its continuation in the optional
	// data.
	Number    string
	BirthDate string
	Sex       string
	Expiry    string
	// Surname and GivenNames are the name field's parts, "<" read as a
	// space.
	Surname, GivenNames string
}

// Parse reads a zone: its lines joined by "\n" ("\r\n" and surrounding
// spaces are tolerated, letters may be lower case).
func Parse(text string) (Zone, error) {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(text), "\n") {
		l = strings.ToUpper(strings.TrimSpace(l))
		if l != "" {
			lines = append(lines, l)
		}
	}
	for _, l := range lines {
		if strings.Trim(l, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<") != "" {
			return Zone{}, ErrFormat
		}
	}
	switch {
	case len(lines) == 2 && len(lines[0]) == 44 && len(lines[1]) == 44:
		return parseTD3(lines[0], lines[1])
	case len(lines) == 3 && len(lines[0]) == 30 && len(lines[1]) == 30 && len(lines[2]) == 30:
		return parseTD1(lines[0], lines[1], lines[2])
	}
	return Zone{}, ErrFormat
}

// parseTD3: line 2 is number (0–8) and its digit (9), nationality
// (10–12), birth date (13–18) and digit (19), sex (20), expiry (21–26) and
// digit (27), personal number (28–41) and digit (42), composite digit (43)
// over 0–9, 13–19 and 21–42.
func parseTD3(l1, l2 string) (Zone, error) {
	z := Zone{Format: TD3, DocumentCode: fill(l1[0:2]), Issuer: fill(l1[2:5]),
		Number: fill(l2[0:9]), Nationality: fill(l2[10:13]), BirthDate: l2[13:19], Sex: fill(l2[20:21]), Expiry: l2[21:27]}
	z.Surname, z.GivenNames = names(l1[5:])
	checks := []struct {
		part, data string
		digit      byte
	}{
		{PartNumber, l2[0:9], l2[9]},
		{PartBirthDate, l2[13:19], l2[19]},
		{PartExpiry, l2[21:27], l2[27]},
	}
	for _, c := range checks {
		if !checkOK(c.data, c.digit) {
			return Zone{}, &CheckError{Part: c.part}
		}
	}
	// The personal number's digit may be "<" when the field is empty.
	if opt := l2[28:42]; !(fill(opt) == "" && (l2[42] == '<' || l2[42] == '0')) && !checkOK(opt, l2[42]) {
		return Zone{}, &CheckError{Part: PartOptional}
	}
	if !checkOK(l2[0:10]+l2[13:20]+l2[21:43], l2[43]) {
		return Zone{}, &CheckError{Part: PartComposite}
	}
	return z, dates(z)
}

// parseTD1: line 1 is the document code (0–1), issuer (2–4), number
// (5–13) and its digit (14), optional data (15–29); line 2 birth date
// (0–5) and digit (6), sex (7), expiry (8–13) and digit (14), nationality
// (15–17), optional data (18–28), composite digit (29) over line 1's 5–29
// and line 2's 0–6, 8–14 and 18–28. A number longer than 9 characters
// puts "<" in the digit's place and continues at the start of the
// optional data, its last character there being the whole number's digit.
func parseTD1(l1, l2, l3 string) (Zone, error) {
	z := Zone{Format: TD1, DocumentCode: fill(l1[0:2]), Issuer: fill(l1[2:5]),
		BirthDate: l2[0:6], Sex: fill(l2[7:8]), Expiry: l2[8:14], Nationality: fill(l2[15:18])}
	z.Surname, z.GivenNames = names(l3)
	if l1[14] == '<' && l1[15] != '<' {
		rest, _, _ := strings.Cut(l1[15:], "<")
		if len(rest) < 2 {
			return Zone{}, &CheckError{Part: PartNumber}
		}
		full := l1[5:14] + rest[:len(rest)-1]
		if !checkOK(full, rest[len(rest)-1]) {
			return Zone{}, &CheckError{Part: PartNumber}
		}
		z.Number = fill(full)
	} else {
		if !checkOK(l1[5:14], l1[14]) {
			return Zone{}, &CheckError{Part: PartNumber}
		}
		z.Number = fill(l1[5:14])
	}
	checks := []struct {
		part, data string
		digit      byte
	}{
		{PartBirthDate, l2[0:6], l2[6]},
		{PartExpiry, l2[8:14], l2[14]},
		{PartComposite, l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29], l2[29]},
	}
	for _, c := range checks {
		if !checkOK(c.data, c.digit) {
			return Zone{}, &CheckError{Part: c.part}
		}
	}
	return z, dates(z)
}

// dates refuses a birth or expiry date that is no calendar day (the check
// digit of "741399" can be right). An unknown birth day or month is
// written with fillers, which Doc 9303 allows.
func dates(z Zone) error {
	if _, ok := Day(z.Expiry); !ok {
		return ErrFormat
	}
	if strings.Contains(z.BirthDate, "<") {
		return nil
	}
	if _, ok := Day(z.BirthDate); !ok {
		return ErrFormat
	}
	return nil
}

// Day reads a YYMMDD date as month and day of a two-digit year: ok is
// false when it is not a day of any century (1900–2099 tried, so 29 Feb
// of "00" is a day).
func Day(yymmdd string) (civil.Date, bool) {
	if len(yymmdd) != 6 || strings.Trim(yymmdd, "0123456789") != "" {
		return civil.Date{}, false
	}
	for _, century := range []string{"20", "19"} {
		if d, err := civil.Parse(century + yymmdd[0:2] + "-" + yymmdd[2:4] + "-" + yymmdd[4:6]); err == nil {
			return d, true
		}
	}
	return civil.Date{}, false
}

// YYMMDD writes a day as a zone writes it.
func YYMMDD(d civil.Date) string {
	s := d.String() // YYYY-MM-DD
	return s[2:4] + s[5:7] + s[8:10]
}

// CheckDigit is the digit of Doc 9303 part 3 over s: the values (0–9,
// A–Z as 10–35, "<" as 0) weighted 7, 3, 1 in turn, summed, modulo 10.
func CheckDigit(s string) byte {
	sum := 0
	for i := 0; i < len(s); i++ {
		c, v := s[i], 0
		switch {
		case c >= '0' && c <= '9':
			v = int(c - '0')
		case c >= 'A' && c <= 'Z':
			v = int(c-'A') + 10
		}
		sum += v * [3]int{7, 3, 1}[i%3]
	}
	return byte('0' + sum%10)
}

func checkOK(data string, digit byte) bool { return CheckDigit(data) == digit }

// fill drops the filler: "CZE" stays, "D<<" is "D".
func fill(s string) string { return strings.TrimRight(s, "<") }

// names splits the name field at "<<": the primary identifier, then the
// secondary one, each "<" a space.
func names(s string) (surname, given string) {
	s = strings.TrimRight(s, "<")
	sur, giv, _ := strings.Cut(s, "<<")
	return strings.ReplaceAll(sur, "<", " "), strings.TrimSpace(strings.ReplaceAll(giv, "<", " "))
}

// NormalizeNumber is a document number as a zone holds it: upper case,
// without spaces, dashes, slashes and dots, which the printed number
// may carry but the zone cannot.
func NormalizeNumber(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '/', '.', '<':
			return -1
		}
		return r
	}, strings.ToUpper(strings.TrimSpace(s)))
}
