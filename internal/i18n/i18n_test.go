package i18n

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
)

// The completeness rule: English and Czech hold every key, Polish,
// Ukrainian and Romanian every key a driver sees (all but StaffOnly); no
// language holds a key English lacks; a key has the same placeholders in
// every language and no text is empty. A missing text would show a
// driver the English one, or the key itself.
func TestCataloguesComplete(t *testing.T) {
	placeholders := regexp.MustCompile(`\{[a-z_]+\}`)
	names := func(s string) []string {
		p := placeholders.FindAllString(s, -1)
		sort.Strings(p)
		return p
	}
	english := Keys(EN)
	if len(english) < 300 {
		t.Fatalf("only %d English keys: catalogues not loaded", len(english))
	}
	driverFacing := 0
	for _, k := range english {
		required := Complete
		if !IsStaffOnly(k) {
			required = Langs
			driverFacing++
		}
		for _, l := range required {
			if !l.Has(k) {
				t.Errorf("key %q has no %s text", k, l)
			}
		}
	}
	if driverFacing < 200 {
		t.Errorf("only %d keys a driver sees: StaffOnly is too wide", driverFacing)
	}
	for _, l := range Langs {
		for _, k := range Keys(l) {
			if !EN.Has(k) {
				t.Errorf("key %q is in %s but not in English", k, l)
				continue
			}
			text := l.T(k)
			if strings.TrimSpace(text) == "" {
				t.Errorf("key %q is empty in %s", k, l)
			}
			if pe, pl := names(EN.T(k)), names(text); !equal(pe, pl) {
				t.Errorf("key %q: placeholders %v in en, %v in %s", k, pe, pl, l)
			}
			forms := catalogs[l][k].forms
			if forms == nil {
				continue
			}
			// A plural text spells out every category of its language, no
			// other, and is chosen by a {count} its forms may leave out
			// ("jeden řidič") but never add to.
			var got []string
			for f, s := range forms {
				got = append(got, formNames[f])
				for _, p := range names(s) {
					if !strings.Contains(EN.T(k), p) {
						t.Errorf("key %q: the %s form in %s names %s, which English lacks", k, formNames[f], l, p)
					}
				}
			}
			sort.Strings(got)
			want := FormNames(l)
			sort.Strings(want)
			if !equal(got, want) {
				t.Errorf("key %q: plural forms %v in %s, its rules need %v", k, got, l, want)
			}
			if !strings.Contains(EN.T(k), "{count}") {
				t.Errorf("key %q has plural forms in %s but English has no {count} to choose them", k, l)
			}
		}
	}
}

// The locale files are what translators and their tools edit: each must
// be a flat JSON object in canonical form (keys sorted, two-space indent,
// no key twice, UTF-8 written as itself), so a tool's save or a hand edit
// that reorders or duplicates keys shows here, and its values are texts or
// plural objects (load checks the categories).
func TestLocaleFilesCanonical(t *testing.T) {
	for _, l := range Langs {
		name := "locales/" + string(l) + ".json"
		raw, err := locales.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var entries map[string]any
		if err := json.Unmarshal(raw, &entries); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for k, v := range entries {
			switch v := v.(type) {
			case string:
			case map[string]any:
				for cat, s := range v {
					if _, ok := s.(string); !ok {
						t.Errorf("%s: %q: the %s form is not a text", name, k, cat)
					}
				}
			default:
				t.Errorf("%s: %q is neither a text nor an object of plural forms", name, k)
			}
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), raw) {
			got, want := strings.Split(string(raw), "\n"), strings.Split(b.String(), "\n")
			for i := range min(len(got), len(want)) {
				if got[i] != want[i] {
					t.Errorf("%s is not in canonical form (sorted keys, two-space indent, no duplicates); line %d is %q, expected %q", name, i+1, got[i], want[i])
					break
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s has %d lines, its canonical form %d (a key twice?)", name, len(got), len(want))
			}
		}
	}
}

// The CLDR categories a plural text must spell out, as translators are
// told in docs/texts.md.
func TestFormNames(t *testing.T) {
	for l, want := range map[Lang]string{
		EN: "one other", CS: "one few many other", PL: "one few many other",
		UK: "one few many other", RO: "one few other",
	} {
		if got := strings.Join(FormNames(l), " "); got != want {
			t.Errorf("%s plural categories = %q, want %q", l, got, want)
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestT(t *testing.T) {
	if got := CS.T("home.welcome", "name", "Jana"); got != "Vítejte, Jana" {
		t.Errorf("cs welcome = %q", got)
	}
	if got := EN.T("pager.page", "page", 2, "last", 5); got != "Page 2 of 5" {
		t.Errorf("en pager = %q", got)
	}
	if got := CS.T("no.such.key"); got != "no.such.key" {
		t.Errorf("missing key = %q, want the key", got)
	}
	// A Message argument is rendered in the same language; a list is joined.
	m := M("msg.common.too_long", "field", M("field.phone"), "max", 50)
	if got := CS.Text(m); got != "Pole „Telefon“ může mít nejvýše 50 znaků." {
		t.Errorf("cs message = %q", got)
	}
	if got := EN.Text(m); got != "The phone may not be greater than 50 characters." {
		t.Errorf("en message = %q", got)
	}
	if got := EN.T("msg.tenants.tier", "allowed", []string{"free", "starter"}); got != "The tier must be one of: free, starter." {
		t.Errorf("list argument = %q", got)
	}
	// A staff-only text missing in Polish falls back to English.
	if got := PL.T("audit.title"); got != EN.T("audit.title") {
		t.Errorf("pl staff-only fallback = %q", got)
	}
}

func TestAcceptLanguageAndContext(t *testing.T) {
	for header, want := range map[string]Lang{"cs-CZ,cs;q=0.9,en;q=0.8": CS, "de-DE, en-GB;q=0.7": EN, "sk": ""} {
		got, _ := FromAcceptLanguage(header)
		if got != want {
			t.Errorf("FromAcceptLanguage(%q) = %q, want %q", header, got, want)
		}
	}
	if From(context.Background()) != Default {
		t.Error("empty context must give the default language")
	}
	if From(WithLang(context.Background(), CS)) != CS {
		t.Error("WithLang is not read back")
	}
}

func TestDate(t *testing.T) {
	d := civil.NewDate(2026, time.November, 21)
	if got := CS.Date(d); got != "21.\u00a011.\u00a02026" {
		t.Errorf("cs date = %q", got)
	}
	if got := EN.Date(d); got != "21\u00a0Nov\u00a02026" {
		t.Errorf("en date = %q", got)
	}
	if got := EN.Date(civil.Date{}); got != "" {
		t.Errorf("zero date = %q", got)
	}
	prague, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		t.Fatal(err)
	}
	// 23:30 UTC is already the next day in Prague.
	at := time.Date(2026, time.November, 20, 23, 30, 0, 0, time.UTC)
	if got := CS.DateTime(at, prague); got != "21.\u00a011.\u00a02026 00:30" {
		t.Errorf("cs date-time = %q", got)
	}
	if got := EN.Day(at, prague); got != "21\u00a0Nov\u00a02026" {
		t.Errorf("en day = %q", got)
	}
}

func TestMoney(t *testing.T) {
	tests := []struct {
		lang     Lang
		amount   string
		currency string
		want     string
	}{
		{CS, "1250", "CZK", "1\u00a0250,00\u00a0Kč"},
		{EN, "1250", "CZK", "CZK\u00a01,250.00"},
		{CS, "-1234567.5", "EUR", "-1\u00a0234\u00a0567,50\u00a0€"},
		{EN, "-1234567.5", "eur", "-EUR\u00a01,234,567.50"},
		{CS, "0.005", "CZK", "0,01\u00a0Kč"},
		{EN, "999.999", "USD", "USD\u00a01,000.00"},
		{CS, "12", "USD", "12,00\u00a0USD"},
		{EN, "-0.001", "CZK", "CZK\u00a00.00"},
	}
	for _, tt := range tests {
		got := tt.lang.Money(decimal.RequireFromString(tt.amount), tt.currency)
		if got != tt.want {
			t.Errorf("%s Money(%s %s) = %q, want %q", tt.lang, tt.amount, tt.currency, got, tt.want)
		}
	}
}

// The count argument picks the plural form by the language's CLDR rules,
// whether it comes as a number or as the digits a view passes.
func TestPlurals(t *testing.T) {
	drivers := func(l Lang, counts ...any) string {
		var out []string
		for _, n := range counts {
			out = append(out, l.T("home.not_ready.count", "count", n))
		}
		return strings.Join(out, ", ")
	}
	for l, want := range map[Lang]string{
		EN: "1 driver, 2 drivers, 5 drivers, 0 drivers, 21 drivers",
		CS: "1 řidič, 2 řidiči, 5 řidičů, 0 řidičů, 21 řidičů",
		PL: "1 kierowca, 2 kierowcy, 5 kierowców, 0 kierowców, 21 kierowców",
		UK: "1 водій, 2 водії, 5 водіїв, 0 водіїв, 21 водій",
		RO: "1 șofer, 2 șoferi, 5 șoferi, 0 șoferi, 21 de șoferi",
	} {
		if got := drivers(l, 1, "2", 5, 0, int64(21)); got != want {
			t.Errorf("%s: %q, want %q", l, got, want)
		}
	}
	// Romanian says "de" from 20 on, and again past 100 unless 1–19 end it.
	if got := drivers(RO, 20, 101, 119, 120); got != "20 de șoferi, 101 șoferi, 119 șoferi, 120 de șoferi" {
		t.Errorf("ro: %q", got)
	}
	// Polish and Ukrainian look at the last digits: 22 is few, 12 and 25 are many.
	if got := drivers(PL, 22, 12, 25, 102); got != "22 kierowcy, 12 kierowców, 25 kierowców, 102 kierowcy" {
		t.Errorf("pl: %q", got)
	}
	if got := drivers(UK, 22, 12, 111, 1000001); got != "22 водії, 12 водіїв, 111 водіїв, 1000001 водій" {
		t.Errorf("uk: %q", got)
	}
	// A decimal is Czech "many"; no count at all, or one that is no number, is "other".
	if got := drivers(CS, "1.5", "x"); got != "1.5 řidiče, x řidičů" {
		t.Errorf("cs: %q", got)
	}
	if got := CS.T("home.not_ready.count"); got != "{count} řidičů" {
		t.Errorf("cs without a count: %q", got)
	}
	// A plural text missing in a language falls back to English forms.
	if got := PL.T("monthend.confirm.do.close", "count", 1); got != "Close 1 period" {
		t.Errorf("pl fallback: %q", got)
	}
}

// Days and money given to a text are written for people in the reader's
// language, never as stored ("2026-11-30", "2000.00").
func TestArgumentsForPeople(t *testing.T) {
	day := civil.NewDate(2026, time.November, 30)
	owed := Amount{Value: decimal.RequireFromString("-2000"), Currency: "CZK"}
	for _, tt := range []struct {
		lang Lang
		arg  any
		want string
	}{
		{CS, day, "30.\u00a011.\u00a02026"},
		{EN, &day, "30\u00a0Nov\u00a02026"},
		{EN, (*civil.Date)(nil), ""},
		{CS, owed, "-2\u00a0000,00\u00a0Kč"},
		{EN, owed, "-CZK\u00a02,000.00"},
	} {
		if got := tt.lang.T("msg.finance.new_amount_below", "amount", tt.arg); !strings.Contains(got, "("+tt.want+")") {
			t.Errorf("%s: %v gives %q, want it to hold %q", tt.lang, tt.arg, got, tt.want)
		}
	}
	if got := CS.Or("business_trip", "finance.category.business_trip"); got != "Služební cesta" {
		t.Errorf("a category with words: %q", got)
	}
	if got := CS.Or("Stravné", "finance.category.Stravné"); got != "Stravné" {
		t.Errorf("a category typed by people: %q", got)
	}
}
