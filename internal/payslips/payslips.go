// Package payslips renders a driver's payslip for one pay period as a PDF
// (docs/finance.md, "Payslips"): the company, the driver, the period, each
// transaction with its type and category in words, the totals and the net,
// every label in the driver's language.
//
// The text is set in DejaVu Sans, embedded in the binary (fonts/, with its
// licence) and subset into each PDF, so Czech, Polish, Ukrainian and
// Romanian letters print right in any viewer and the text can be selected
// and extracted. The PDF itself is written by github.com/go-pdf/fpdf.
package payslips

import (
	_ "embed"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/go-pdf/fpdf"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
)

// The font: DejaVu Sans (Bitstream Vera licence, fonts/LICENSE), which
// holds the Latin letters of every supported language, Romanian ș and ț
// with the comma below, and Cyrillic with ґ, є, і and ї.
var (
	//go:embed fonts/DejaVuSans.ttf
	fontRegular []byte
	//go:embed fonts/DejaVuSans-Bold.ttf
	fontBold []byte
)

// Payslip is what one payslip shows. Lines are the period's transactions
// that count in its totals (every status but cancelled, deleted ones
// left out), oldest first; the totals are the period's: Earnings = sum of
// the positive amounts, Deductions = absolute sum of the negative ones,
// Net = Earnings − Deductions.
type Payslip struct {
	// Lang is the language of every label, date and amount.
	Lang    i18n.Lang
	Company string
	// DriverName is the driver's full name, DriverNumber its internal number.
	DriverName, DriverNumber string
	// PeriodType is monthly, weekly or quarterly; Status open, closed or paid.
	PeriodType, Status     string
	PeriodStart, PeriodEnd civil.Date
	Currency               string
	Lines                  []Line
	Earnings, Deductions   money.Amount
	Net                    money.Amount
	// Issued is the day the payslip is made (the company's today).
	Issued civil.Date
}

// Line is one transaction of the payslip.
type Line struct {
	Date civil.Date
	// Type is the transaction type (base_salary, penalty...); Category the
	// stored category ("" for none): a category the system sets
	// (damage_fine, penalty, penalty_correction) is shown in words, one
	// typed by people as typed.
	Type, Category, Description string
	Amount                      money.Amount
}

// Page geometry, in millimetres (A4 portrait).
const (
	pageHeight = 297.0
	margin     = 15.0
	// footerTop is where the page footer starts; rows end above it.
	footerTop  = pageHeight - 12
	lineHeight = 4.6
	bodySize   = 9.0
	family     = "DejaVu"
)

// columns of the transaction table: header key, width, alignment.
var columns = []struct {
	key   string
	width float64
	align string
}{
	{"finance.col.transaction_date", 24, "L"},
	{"finance.col.transaction_type", 34, "L"},
	{"finance.col.category", 32, "L"},
	{"finance.col.description", 60, "L"},
	{"finance.col.amount", 30, "R"},
}

// Render writes the payslip as a PDF to w.
func Render(w io.Writer, p Payslip) error {
	l := p.Lang
	pdf := fpdf.New("P", "mm", "A4", "")
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(false, 0) // rows break pages themselves, repeating the header
	pdf.AddUTF8FontFromBytes(family, "", fontRegular)
	pdf.AddUTF8FontFromBytes(family, "B", fontBold)
	pdf.AliasNbPages("{nb}")
	title := l.T("payslip.title")
	pdf.SetTitle(title+" – "+clean(p.DriverName)+" – "+spanText(l, p.PeriodStart, p.PeriodEnd), true)
	pdf.SetAuthor(clean(p.Company), true)
	pdf.SetCreator("Konvoj", false)
	pdf.SetLang(string(l))
	pdf.SetFooterFunc(func() {
		pdf.SetY(footerTop + 3)
		pdf.SetFont(family, "", 8)
		pdf.SetTextColor(90, 90, 90)
		pdf.CellFormat(0, 4, l.T("payslip.page", "page", pdf.PageNo(), "pages", "{nb}"), "", 0, "C", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
	})
	pdf.AddPage()

	// The heading: company, title, issue date.
	pdf.SetFont(family, "B", 11)
	pdf.CellFormat(120, 6, clean(p.Company), "", 0, "L", false, 0, "")
	pdf.SetFont(family, "", bodySize)
	pdf.CellFormat(0, 6, l.T("payslip.issued")+" "+l.Date(p.Issued), "", 1, "R", false, 0, "")
	pdf.SetFont(family, "B", 18)
	pdf.CellFormat(0, 11, title, "", 1, "L", false, 0, "")
	pdf.Ln(1)

	// Who and when.
	facts := [][2]string{
		{l.T("payslip.driver"), clean(p.DriverName)},
		{l.T("payslip.internal_number"), clean(p.DriverNumber)},
		{l.T("payslip.period"), spanText(l, p.PeriodStart, p.PeriodEnd) + " (" + l.T("finance.period.type."+p.PeriodType) + ")"},
		{l.T("payslip.status"), l.T("finance.period.status." + p.Status)},
		{l.T("payslip.currency"), p.Currency},
	}
	for _, f := range facts {
		pdf.SetFont(family, "", bodySize+1)
		pdf.SetTextColor(70, 70, 70)
		pdf.CellFormat(45, 5.5, f[0], "", 0, "L", false, 0, "")
		pdf.SetTextColor(0, 0, 0)
		pdf.SetFont(family, "B", bodySize+1)
		pdf.CellFormat(0, 5.5, f[1], "", 1, "L", false, 0, "")
	}
	pdf.Ln(4)

	// The transactions.
	tableHeader(pdf, l)
	pdf.SetFont(family, "", bodySize)
	if len(p.Lines) == 0 {
		pdf.CellFormat(0, 8, l.T("payslip.none"), "B", 1, "L", false, 0, "")
	}
	for _, ln := range p.Lines {
		cells := []string{l.Date(ln.Date), l.T("finance.type." + ln.Type), category(l, ln.Category),
			clean(ln.Description), l.Money(ln.Amount.Decimal(), p.Currency)}
		wrapped := make([][]string, len(cells))
		rows := 1
		for i, c := range cells {
			wrapped[i] = pdf.SplitText(c, columns[i].width)
			rows = max(rows, len(wrapped[i]))
		}
		h := float64(rows)*lineHeight + 1.6
		if pdf.GetY()+h > footerTop {
			pdf.AddPage()
			tableHeader(pdf, l)
			pdf.SetFont(family, "", bodySize)
		}
		x, y := pdf.GetX(), pdf.GetY()
		for i, col := range columns {
			for j, text := range wrapped[i] {
				pdf.SetXY(x, y+0.8+float64(j)*lineHeight)
				pdf.CellFormat(col.width, lineHeight, text, "", 0, col.align, false, 0, "")
			}
			x += col.width
		}
		pdf.SetDrawColor(220, 220, 220)
		pdf.Line(margin, y+h, x, y+h)
		pdf.SetXY(margin, y+h)
	}

	// The totals, under the amounts.
	totals := []struct {
		label string
		value money.Amount
		bold  bool
	}{
		{l.T("pay.earnings"), p.Earnings, false},
		{l.T("pay.period_deductions"), p.Deductions.Neg(), false},
		{l.T("pay.net"), p.Net, true},
	}
	if pdf.GetY()+float64(len(totals))*6+4 > footerTop {
		pdf.AddPage()
	}
	pdf.Ln(3)
	labelWidth, valueWidth := 60.0, 40.0
	left := 210 - margin - labelWidth - valueWidth
	for _, t := range totals {
		style, border := "", ""
		if t.bold {
			style, border = "B", "T"
		}
		pdf.SetFont(family, style, bodySize+1)
		pdf.SetX(left)
		pdf.CellFormat(labelWidth, 6.5, t.label, border, 0, "L", false, 0, "")
		pdf.CellFormat(valueWidth, 6.5, l.Money(t.value.Decimal(), p.Currency), border, 1, "R", false, 0, "")
	}
	if err := pdf.Output(w); err != nil {
		return fmt.Errorf("payslip of %s %s: %w", p.DriverNumber, p.PeriodStart, err)
	}
	return nil
}

// tableHeader draws the header row of the transaction table.
func tableHeader(pdf *fpdf.Fpdf, l i18n.Lang) {
	pdf.SetFont(family, "B", bodySize)
	pdf.SetFillColor(238, 240, 243)
	for i, c := range columns {
		ln := 0
		if i == len(columns)-1 {
			ln = 1
		}
		pdf.CellFormat(c.width, 7, l.T(c.key), "", ln, c.align, true, 0, "")
	}
}

// category is a transaction's category as the payslip shows it: in words
// when the catalogues name it (finance.category.*), else as typed.
func category(l i18n.Lang, c string) string {
	if c == "" {
		return ""
	}
	return clean(l.Or(c, "finance.category."+c))
}

// spanText is a span of days: "1. 11. 2026 – 30. 11. 2026".
func spanText(l i18n.Lang, from, to civil.Date) string {
	return l.Date(from) + " – " + l.Date(to)
}

// clean makes stored text printable on one line: line breaks and tabs
// become spaces, other control and format characters are dropped, and a
// character outside the font's plane (an emoji) becomes U+FFFD, which the
// font has.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			return -1
		case r > 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}
