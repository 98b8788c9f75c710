package i18n

import (
	"context"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
)

// Every key exists in both languages with the same placeholders, so no
// page shows a key or loses a value after switching language.
func TestCataloguesMatch(t *testing.T) {
	placeholders := regexp.MustCompile(`\{[a-z_]+\}`)
	names := func(s string) []string {
		p := placeholders.FindAllString(s, -1)
		sort.Strings(p)
		return p
	}
	for _, a := range Langs {
		for _, b := range Langs {
			for _, k := range Keys(a) {
				if !b.Has(k) {
					t.Errorf("key %q is in %s but not in %s", k, a, b)
					continue
				}
				if pa, pb := names(a.T(k)), names(b.T(k)); len(pa) != len(pb) || (len(pa) > 0 && !equal(pa, pb)) {
					t.Errorf("key %q: placeholders %v in %s, %v in %s", k, pa, a, pb, b)
				}
			}
		}
	}
	if len(Keys(EN)) < 50 {
		t.Fatalf("only %d English keys: catalogues not loaded", len(Keys(EN)))
	}
}

func equal(a, b []string) bool {
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
	if got := CS.Msg("The selected role is invalid."); got != "Vybraná role není platná." {
		t.Errorf("cs message = %q", got)
	}
	if got := CS.Msg("Something unknown."); got != "Something unknown." {
		t.Errorf("unknown message = %q", got)
	}
}

func TestPick(t *testing.T) {
	tests := []struct {
		in   []string
		want Lang
	}{
		{[]string{"cs"}, CS},
		{[]string{"", "en"}, EN},
		{[]string{"de", "CS"}, CS},
		{[]string{"de"}, EN},
		{nil, EN},
	}
	for _, tt := range tests {
		if got := Pick(tt.in...); got != tt.want {
			t.Errorf("Pick(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
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
