package payslips_test

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/payslips"
	"github.com/konvoj/konvoj/internal/payslips/payslipstest"
)

func amount(s string) money.Amount { return money.New(decimal.RequireFromString(s)) }

// sample is a payslip of November 2026 for the driver in the language:
// 32,500.00 earned, 1,250.50 deducted, 31,249.50 net.
func sample(lang i18n.Lang, name string) payslips.Payslip {
	d := func(s string) civil.Date { v, _ := civil.Parse(s); return v }
	return payslips.Payslip{
		Lang: lang, Company: "Doprava Šťastný s.r.o.", DriverName: name, DriverNumber: "DRV-0042",
		PeriodType: "monthly", Status: "closed", PeriodStart: d("2026-11-01"), PeriodEnd: d("2026-11-30"),
		Currency: "CZK", Issued: d("2026-12-03"),
		Lines: []payslips.Line{
			{Date: d("2026-11-02"), Type: "base_salary", Category: "salary", Description: "Mzda za listopad", Amount: amount("30000.00")},
			{Date: d("2026-11-12"), Type: "bonus", Description: "Výkon: žádná nehoda\nřádek dva", Amount: amount("2500.00")},
			{Date: d("2026-11-20"), Type: "penalty", Category: "damage_fine", Description: "Poškozené zrcátko", Amount: amount("-1250.50")},
		},
		Earnings: amount("32500.00"), Deductions: amount("1250.50"), Net: amount("31249.50"),
	}
}

// TestPayslipLetters: a payslip prints names with Czech, Polish, Ukrainian
// and Romanian letters exactly (extracted from the PDF as text, so the
// font has the glyphs and the PDF maps them back to the letters), its
// labels in the driver's language, and the net in that language's money
// format.
func TestPayslipLetters(t *testing.T) {
	cases := []struct {
		lang             i18n.Lang
		name, title, net string
	}{
		{i18n.CS, "Jiří Dvořák", "Výplatní páska", "31 249,50 Kč"},
		{i18n.PL, "Łukasz Wądołowski", "Pasek wynagrodzenia", "31 249,50 CZK"},
		{i18n.UK, "Олександр Ґонта", "Розрахунковий листок", "31 249,50 CZK"},
		{i18n.RO, "Ștefan Țăran", "Fluturaș de salariu", "31.249,50 CZK"},
		{i18n.EN, "Jan Novák", "Payslip", "CZK 31,249.50"},
	}
	for _, c := range cases {
		t.Run(string(c.lang), func(t *testing.T) {
			var buf bytes.Buffer
			if err := payslips.Render(&buf, sample(c.lang, c.name)); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
				t.Fatalf("not a PDF: %q", buf.Bytes()[:min(20, buf.Len())])
			}
			text := payslipstest.Text(t, buf.Bytes())
			for _, want := range []string{
				c.name, c.title, payslipstest.Squash(c.net), "DRV-0042", "Doprava Šťastný s.r.o.",
				c.lang.T("pay.net"), c.lang.T("finance.type.base_salary"), c.lang.T("finance.category.damage_fine"),
				c.lang.T("finance.period.status.closed"), payslipstest.Squash(c.lang.Money(decimal.RequireFromString("-1250.50"), "CZK")),
				payslipstest.Squash(c.lang.Date(civil.NewDate(2026, 11, 1)) + " – " + c.lang.Date(civil.NewDate(2026, 11, 30))),
				payslipstest.Squash(c.lang.T("payslip.page", "page", 1, "pages", 1)),
			} {
				if !strings.Contains(text, want) {
					t.Errorf("the PDF's text lacks %q:\n%s", want, text)
				}
			}
		})
	}
}

// TestPayslipPages: a period with many transactions runs over several
// pages, each numbered "k of n", and every line is printed once.
func TestPayslipPages(t *testing.T) {
	p := sample(i18n.CS, "Jiří Dvořák")
	line := p.Lines[0]
	p.Lines = nil
	for i := range 120 {
		line.Description = "Řádek " + string(rune('A'+i%26)) + strings.Repeat("x", i%7)
		p.Lines = append(p.Lines, line)
	}
	var buf bytes.Buffer
	if err := payslips.Render(&buf, p); err != nil {
		t.Fatal(err)
	}
	text := payslipstest.Text(t, buf.Bytes())
	if strings.Count(text, "Řádek") != 120 {
		t.Fatalf("want the 120 lines, got %d", strings.Count(text, "Řádek"))
	}
	numbers := regexp.MustCompile(`Strana (\d+) z (\d+)`).FindAllStringSubmatch(text, -1)
	if len(numbers) < 2 || strings.Contains(text, "{nb}") {
		t.Fatalf("want several numbered pages:\n%s", text)
	}
	for i, n := range numbers {
		if n[1] != strconv.Itoa(i+1) || n[2] != strconv.Itoa(len(numbers)) {
			t.Fatalf("page %d numbered %q", i+1, n[0])
		}
	}
}

// TestFontHasTheLetters: both embedded fonts have a glyph for every letter
// of the payslip's texts in every language and for the letters of the
// supported languages' names (so nothing prints as an empty box).
func TestFontHasTheLetters(t *testing.T) {
	letters := "ěščřžýáíéůúťďňó ĚŠČŘŽÝÁÍÉŮÚŤĎŇÓ ąćęłńóśźż ĄĆĘŁŃÓŚŹŻ ґєіїйщьюя ҐЄІЇЙЩЬЮЯ ășțâî ȘȚÂÎĂ äöüß –€₴\u00a0\uFFFD"
	for _, l := range i18n.Langs {
		for _, k := range i18n.Keys(l) {
			if strings.HasPrefix(k, "payslip.") || strings.HasPrefix(k, "finance.type.") || strings.HasPrefix(k, "finance.col.") ||
				strings.HasPrefix(k, "finance.period.") || strings.HasPrefix(k, "pay.") {
				letters += l.T(k)
			}
		}
	}
	for _, file := range []string{"fonts/DejaVuSans.ttf", "fonts/DejaVuSans-Bold.ttf"} {
		ttf, err := fpdf.TtfParse(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, r := range letters {
			if r > 0xFFFF || ttf.Chars[uint16(r)] == 0 {
				t.Errorf("%s has no glyph for %q (U+%04X)", file, r, r)
			}
		}
	}
	if _, err := os.Stat("fonts/LICENSE"); err != nil {
		t.Fatalf("the font's licence must ship with it: %v", err)
	}
}

// BenchmarkRender renders one payslip of three lines (the font is parsed
// and subset for each PDF).
func BenchmarkRender(b *testing.B) {
	p := sample(i18n.CS, "Jiří Dvořák")
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := payslips.Render(&buf, p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len()), "pdf-bytes")
}
