package i18n

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
)

// nbsp keeps "1 250,00 Kč" and "21. 11. 2026" on one line.
const nbsp = "\u00a0"

var monthsEN = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// Date formats a calendar day: cs "21. 11. 2026", en "21 Nov 2026"
// (the spaces are non-breaking), pl, uk and ro "21.11.2026".
func (l Lang) Date(d civil.Date) string {
	if d.IsZero() {
		return ""
	}
	return l.date(d.Year(), d.Month(), d.Day())
}

// Day formats the calendar day of an instant in the given location (the
// company's time zone).
func (l Lang) Day(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	if loc != nil {
		t = t.In(loc)
	}
	return l.date(t.Year(), t.Month(), t.Day())
}

// DateTime formats an instant in the location: cs "21. 11. 2026 14:05",
// en "21 Nov 2026, 14:05".
func (l Lang) DateTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return ""
	}
	if loc != nil {
		t = t.In(loc)
	}
	day := l.date(t.Year(), t.Month(), t.Day())
	if l == EN {
		return day + ", " + t.Format("15:04")
	}
	return day + " " + t.Format("15:04")
}

func (l Lang) date(y int, m time.Month, d int) string {
	switch l {
	case CS:
		return itoa(d) + "." + nbsp + itoa(int(m)) + "." + nbsp + itoa(y)
	case EN:
		return itoa(d) + nbsp + monthsEN[m-1] + nbsp + itoa(y)
	}
	return fmt.Sprintf("%02d.%02d.%d", d, int(m), y)
}

// Money formats an amount with two decimals: cs "1 250,00 Kč" (space as the
// thousands separator, decimal comma, symbol after), en "CZK 1,250.00"
// (currency code first), pl and uk "1 250,00 CZK", ro "1.250,00 CZK".
// Negative amounts start with a minus sign.
func (l Lang) Money(amount decimal.Decimal, currency string) string {
	currency = strings.ToUpper(strings.TrimSpace(currency))
	neg := amount.IsNegative()
	digits := amount.Abs().StringFixed(2)
	whole, frac, _ := strings.Cut(digits, ".")
	sign := ""
	if neg && !amount.Round(2).IsZero() {
		sign = "-"
	}
	switch l {
	case CS:
		sym := currency
		switch currency {
		case "CZK":
			sym = "Kč"
		case "EUR":
			sym = "€"
		}
		return sign + group(whole, nbsp) + "," + frac + nbsp + sym
	case RO:
		return sign + group(whole, ".") + "," + frac + nbsp + currency
	case PL, UK:
		return sign + group(whole, nbsp) + "," + frac + nbsp + currency
	}
	return sign + currency + nbsp + group(whole, ",") + "." + frac
}

// group inserts sep between groups of three digits from the right.
func group(whole, sep string) string {
	if len(whole) <= 3 {
		return whole
	}
	var b strings.Builder
	first := len(whole) % 3
	if first > 0 {
		b.WriteString(whole[:first])
	}
	for i := first; i < len(whole); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(whole[i : i+3])
	}
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }
