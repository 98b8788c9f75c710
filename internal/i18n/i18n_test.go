package i18n

import (
	"context"
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
