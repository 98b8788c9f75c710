// Package countries validates ISO 3166-1 alpha-2 country codes (citizenship,
// bank country, issuing country).
package countries

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// codes are the officially assigned ISO 3166-1 alpha-2 codes, plus XK
// (Kosovo): a user-assigned code that the EU, banks and many drivers'
// documents use.
var codes = func() map[string]bool {
	const list = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ
BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ
DE DJ DK DM DO DZ
EC EE EG EH ER ES ET
FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY
HK HM HN HR HT HU
ID IE IL IM IN IO IQ IR IS IT
JE JM JO JP
KE KG KH KI KM KN KP KR KW KY KZ
LA LB LC LI LK LR LS LT LU LV LY
MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ
NA NC NE NF NG NI NL NO NP NR NU NZ
OM
PA PE PF PG PH PK PL PM PN PR PS PT PW PY
QA
RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ
TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ
UA UG UM US UY UZ
VA VC VE VG VI VN VU
WF WS
XK
YE YT
ZA ZM ZW`
	m := map[string]bool{}
	for _, c := range strings.Fields(list) {
		sorted = append(sorted, c)
		m[c] = true
	}
	return m
}()

// sorted are the codes in alphabetical order.
var sorted []string

// Codes returns every accepted code in alphabetical order (for pickers).
func Codes() []string { return append([]string(nil), sorted...) }

// Valid reports whether code is an upper-case ISO 3166-1 alpha-2 code.
func Valid(code string) bool { return codes[code] }

// Normalize trims and upper-cases a code ("cz " → "CZ"); check it with Valid.
func Normalize(code string) string { return strings.ToUpper(strings.TrimSpace(code)) }

// nameLanguages are the languages whose country names Named knows:
// Konvoj's own.
var nameLanguages = []display.Namer{display.English.Regions(), display.Czech.Regions(), display.Polish.Regions(),
	display.Ukrainian.Regions(), display.Romanian.Regions()}

var byName = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, code := range sorted {
		r, err := language.ParseRegion(code)
		if err != nil {
			continue
		}
		for _, n := range nameLanguages {
			if name := strings.ToLower(n.Name(r)); name != "" {
				m[name] = code
			}
		}
	}
	return m
})

// Named is the code of a country written by its name in one of Konvoj's
// languages, any case ("Rumunsko", "romania" → RO), for a message that
// suggests the code.
func Named(name string) (string, bool) {
	code, ok := byName()[strings.ToLower(strings.TrimSpace(name))]
	return code, ok
}

// icaoOnly are the issuing-state codes of ICAO Doc 9303 part 3 that are not
// ISO 3166-1 alpha-3: Germany's "D" and the British nationality classes,
// and Kosovo's RKS.
var icaoOnly = map[string]string{"D": "DE", "GBD": "GB", "GBN": "GB", "GBO": "GB", "GBP": "GB", "GBS": "GB", "RKS": "XK"}

// FromICAO is the alpha-2 code of an issuing state or nationality as a
// machine readable zone writes it ("CZE" → CZ, "D" → DE); ok is false for
// codes of no country (organisations such as UNO, stateless XXA, the
// specimens' UTO).
func FromICAO(code string) (string, bool) {
	code = strings.ToUpper(strings.Trim(code, " <"))
	if c, ok := icaoOnly[code]; ok {
		return c, true
	}
	if len(code) != 3 || strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return "", false
	}
	r, err := language.ParseRegion(code)
	if err != nil || !r.IsCountry() || !codes[r.String()] {
		return "", false
	}
	return r.String(), true
}
