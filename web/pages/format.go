package pages

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
)

func driverURL(id uuid.UUID) string { return "/drivers/" + id.String() }

// holdersURL is the list of a document holder type's records: drivers
// (holderType "driver"), vehicles ("vehicle") or trailers ("trailer").
func holdersURL(holderType string) string {
	switch holderType {
	case documents.HolderVehicle:
		return "/vehicles"
	case documents.HolderTrailer:
		return "/trailers"
	}
	return "/drivers"
}

// holderURL is the page of a document's holder of holderType (holdersURL's).
func holderURL(holderType string, id uuid.UUID) string {
	return holdersURL(holderType) + "/" + id.String()
}

// holderDocumentURL is the page of document documentID of a holder
// (holderURL's holder types).
func holderDocumentURL(holderType string, holderID, documentID uuid.UUID) string {
	return holderURL(holderType, holderID) + "/documents/" + documentID.String()
}

func fullName(d drivers.Driver) string {
	parts := []string{d.FirstName}
	if d.MiddleName != nil {
		parts = append(parts, *d.MiddleName)
	}
	return strings.Join(append(parts, d.LastName), " ")
}

// initials are the avatar's letters: "Jan Novák" → "JN".
func initials(first, last string) string {
	out := ""
	for _, s := range []string{first, last} {
		for _, r := range s {
			out += string(unicode.ToUpper(r))
			break
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func formatDate(lang i18n.Lang, d *civil.Date) string {
	if d == nil {
		return ""
	}
	return lang.Date(*d)
}

func isoDate(d *civil.Date) string {
	if d == nil {
		return ""
	}
	return d.String()
}

// regionNames are the country names of each language (CLDR, through
// x/text), so citizenships and bank countries read "Slovensko" in Czech.
var regionNames = map[i18n.Lang]display.Namer{
	i18n.EN: display.English.Regions(),
	i18n.CS: display.Czech.Regions(),
	i18n.PL: display.Polish.Regions(),
	i18n.UK: display.Ukrainian.Regions(),
	i18n.RO: display.Romanian.Regions(),
}

// collationTags are the languages' alphabetical orders.
var collationTags = map[i18n.Lang]language.Tag{
	i18n.EN: language.English, i18n.CS: language.Czech, i18n.PL: language.Polish,
	i18n.UK: language.Ukrainian, i18n.RO: language.Romanian,
}

// countryName names an ISO 3166-1 alpha-2 code in the language, falling
// back to the code.
func countryName(lang i18n.Lang, code string) string {
	r, err := language.ParseRegion(code)
	if err != nil {
		return code
	}
	namer, ok := regionNames[lang]
	if !ok {
		namer = regionNames[i18n.EN]
	}
	if name := namer.Name(r); name != "" {
		return name
	}
	return code
}

var (
	countryOptionsMu sync.Mutex
	countryOptions   = map[i18n.Lang][]views.Option{}
)

// countryChoices are every country, sorted by its name in the language.
func countryChoices(lang i18n.Lang) []views.Option {
	countryOptionsMu.Lock()
	defer countryOptionsMu.Unlock()
	if opts, ok := countryOptions[lang]; ok {
		return opts
	}
	var opts []views.Option
	for _, code := range countries.Codes() {
		opts = append(opts, views.Option{Value: code, Label: countryName(lang, code)})
	}
	sortOptions(lang, opts)
	countryOptions[lang] = opts
	return opts
}

// sortOptions sorts choices by label in the language's alphabetical order
// ("Č" after "C" in Czech).
func sortOptions(lang i18n.Lang, opts []views.Option) {
	tag, ok := collationTags[lang]
	if !ok {
		tag = language.English
	}
	col := collate.New(tag)
	sort.SliceStable(opts, func(i, j int) bool { return col.CompareString(opts[i].Label, opts[j].Label) < 0 })
}

// formatSize says a file size for people in binary units, the units the
// README and UPLOAD_MAX_BYTES use: "850 KiB", "12.5 MiB", "20 MiB" for
// 20971520 bytes; one decimal from MiB up, dropped when it is 0, with the
// language's decimal separator and a no-break space before the unit.
func formatSize(lang i18n.Lang, n int64) string {
	var s string
	switch {
	case n < 1<<10:
		s = fmt.Sprintf("%d B", n)
	case n < 1<<20:
		s = fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		s = fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	default:
		s = fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	s = strings.Replace(s, ".0 ", " ", 1)
	if lang != i18n.EN {
		s = strings.Replace(s, ".", ",", 1) // a decimal comma
	}
	return strings.Replace(s, " ", "\u00a0", 1)
}

// pageParam is the list page asked for in the query (?page=N); 1 when it
// is missing or not a positive number.
func pageParam(c echo.Context) int {
	page, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil || page < 1 {
		return 1
	}
	return page
}

// lastValue is a form field's last value, trimmed ("" when it was not
// sent): a checkbox sends a hidden "false" and, when ticked, "true", so the
// last value counts.
func lastValue(form url.Values, name string) string {
	v := form[name]
	if len(v) == 0 {
		return ""
	}
	return strings.TrimSpace(v[len(v)-1])
}

// pager is the views' pager of a page of a list (docs/lists.md): where
// its rows stand in the whole list, page X of Y, and the addresses of the
// neighbouring pages ("" when there is none); at builds the address of
// page n. A page past the end points back to the last one.
func pager[T any](pg paging.Page[T], at func(n int) string) views.Pager {
	v := views.Pager{Total: pg.Total, From: pg.First(), To: pg.Last(), Page: pg.Request.Number, LastPage: pg.LastPage()}
	if n := pg.Prev(); n != 0 {
		v.PrevURL = at(n)
	}
	if n := pg.Next(); n != 0 {
		v.NextURL = at(n)
	}
	return v
}

// spanText is a span of days: "1 Nov 2026 – 30 Nov 2026".
func spanText(lang i18n.Lang, from, to civil.Date) string {
	return lang.Date(from) + " – " + lang.Date(to)
}
