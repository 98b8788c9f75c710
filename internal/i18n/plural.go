package i18n

import (
	"strings"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
)

// formNames are the CLDR plural categories as the locale files spell them,
// indexed by plural.Form.
var formNames = [...]string{plural.Other: "other", plural.Zero: "zero", plural.One: "one", plural.Two: "two", plural.Few: "few", plural.Many: "many"}

func formOf(name string) (plural.Form, bool) {
	for f, n := range formNames {
		if n == name {
			return plural.Form(f), true
		}
	}
	return plural.Other, false
}

// PluralForm is the CLDR plural category ("one", "few", "many", "other")
// of a count written in digits ("5", "1.5") in the language; anything
// that is not such a number is "other".
func PluralForm(l Lang, count string) plural.Form {
	whole, frac, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(count), "-"), ".")
	if whole == "" || !digits(whole) || !digits(frac) {
		return plural.Other
	}
	// The rules look at i modulo 10, 100 and 1,000,000 and compare it with
	// small numbers; keeping the last six digits plus a million keeps every
	// remainder and never makes a big number look like 1.
	i := atoiTail(whole)
	fracTrim := strings.TrimRight(frac, "0")
	return plural.Cardinal.MatchPlural(language.Make(string(l)), i, len(frac), len(fracTrim), atoiTail(frac), atoiTail(fracTrim))
}

// FormNames are the plural categories the language's CLDR rules use, in
// the order zero, one, two, few, many, other: the ones its plural texts
// must all spell out.
func FormNames(l Lang) []string {
	seen := map[plural.Form]bool{}
	for i := 0; i <= 1000; i++ {
		seen[PluralForm(l, itoa(i))] = true
		for _, f := range []string{".0", ".5", ".25"} {
			seen[PluralForm(l, itoa(i)+f)] = true
		}
	}
	var out []string
	for _, f := range []plural.Form{plural.Zero, plural.One, plural.Two, plural.Few, plural.Many, plural.Other} {
		if seen[f] {
			out = append(out, formNames[f])
		}
	}
	return out
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// atoiTail reads a string of digits; one longer than six digits becomes
// its last six digits plus 1,000,000 (see PluralForm).
func atoiTail(s string) int {
	big := len(s) > 6
	if big {
		s = s[len(s)-6:]
	}
	n := 0
	for _, r := range s {
		n = 10*n + int(r-'0')
	}
	if big {
		n += 1000000
	}
	return n
}
