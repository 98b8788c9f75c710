// Package money holds Amount, the one type for sums of money: a decimal with
// two places (SQL numeric(10,2) for a single amount), written in JSON as a
// number with exactly two decimals (1250.00) and read from a JSON number or a
// numeric string without ever passing through a float.
package money

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
	"golang.org/x/text/currency"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Places is the number of decimal places of every amount.
const Places = 2

// Limit is the smallest absolute value a single amount may not reach:
// numeric(10,2) holds at most 99,999,999.99.
var Limit = decimal.New(1, 8)

// Amount is a sum of money with two decimal places. The zero value is 0.00.
type Amount struct{ d decimal.Decimal }

// New returns the amount of a decimal, rounded half away from zero to two
// places (sums of amounts are already exact; averages are not).
func New(d decimal.Decimal) Amount { return Amount{d.Round(Places)} }

// Zero is 0.00.
var Zero = Amount{}

// Decimal returns the amount as a decimal.
func (a Amount) Decimal() decimal.Decimal { return a.d }

// Add returns a + b.
func (a Amount) Add(b Amount) Amount { return Amount{a.d.Add(b.d)} }

// Sub returns a - b.
func (a Amount) Sub(b Amount) Amount { return Amount{a.d.Sub(b.d)} }

// Neg returns -a.
func (a Amount) Neg() Amount { return Amount{a.d.Neg()} }

// Abs returns |a|.
func (a Amount) Abs() Amount { return Amount{a.d.Abs()} }

// Cmp compares a and b: -1, 0 or +1.
func (a Amount) Cmp(b Amount) int { return a.d.Cmp(b.d) }

// Equal reports whether a and b are the same amount.
func (a Amount) Equal(b Amount) bool { return a.d.Equal(b.d) }

// Sign is -1, 0 or +1.
func (a Amount) Sign() int { return a.d.Sign() }

// IsZero reports whether the amount is 0.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// String formats the amount with exactly two decimals: "1250.00".
func (a Amount) String() string { return string(a.appendFixed(make([]byte, 0, 24))) }

// MarshalJSON writes a JSON number with exactly two decimals.
func (a Amount) MarshalJSON() ([]byte, error) { return a.appendFixed(make([]byte, 0, 24)), nil }

// appendFixed appends the amount with exactly two decimals. An amount as
// New leaves it (exponent -2, at most 18 digits: every amount read from the
// database) is written from its integer coefficient; decimal's StringFixed,
// which any other takes, rounds and formats through big.Int, which every
// amount of every answer would pay for (docs/performance.md, "Encoding
// answers").
func (a Amount) appendFixed(b []byte) []byte {
	if a.d.Exponent() != -Places || a.d.NumDigits() > 18 {
		return append(b, a.d.StringFixed(Places)...)
	}
	c := a.d.CoefficientInt64()
	if c < 0 {
		b, c = append(b, '-'), -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	return append(b, '.', byte('0'+c%100/10), byte('0'+c%10))
}

// UnmarshalJSON reads a JSON number or a numeric string; invalid input is an
// error (request bodies use Input instead, for field messages).
func (a *Amount) UnmarshalJSON(b []byte) error {
	v, err := parseJSON(b)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Value writes the amount to SQL as its exact decimal text.
func (a Amount) Value() (driver.Value, error) { return a.String(), nil }

// ScanNumeric reads a numeric column as pgx decodes it from PostgreSQL's
// binary format: its digits and exponent, without the detour through text
// that Scan takes (formatting the number, then parsing it back, for every
// amount read; docs/performance.md, "Scanning amounts").
// pgx prefers it to Scan for numeric columns; NULL needs a *Amount target.
func (a *Amount) ScanNumeric(v pgtype.Numeric) error {
	switch {
	case !v.Valid:
		return fmt.Errorf("money: cannot scan NULL into an Amount (use *Amount)")
	case v.NaN || v.InfinityModifier != pgtype.Finite:
		return fmt.Errorf("money: cannot scan a numeric that is not a finite number")
	}
	*a = New(decimal.NewFromBigInt(v.Int, v.Exp))
	return nil
}

// Scan reads a SQL value given as text (a numeric cast to text, or a
// driver other than pgx's own codecs).
func (a *Amount) Scan(src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	case int64:
		*a = Amount{decimal.NewFromInt(v)}
		return nil
	case nil:
		return fmt.Errorf("money: cannot scan NULL into an Amount (use *Amount)")
	default:
		return fmt.Errorf("money: cannot scan %T", src)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return fmt.Errorf("money: scan %q: %w", s, err)
	}
	*a = New(d)
	return nil
}

// Problems with an input amount: message keys of the i18n catalogues, with
// the field's name as {field}.
const (
	msgNotNumber = "msg.money.not_number"
	msgPlaces    = "msg.money.places"
	msgRange     = "msg.money.range"
)

// InputError is a problem with an input amount; AddTo reports it for a field.
type InputError struct{ msg string } // msg is the message key

func (e *InputError) Error() string { return e.Message("amount") }

// Message returns the problem in English as a message about the named field.
func (e *InputError) Message(field string) string { return i18n.EN.T(e.msg, "field", field) }

// AddTo records the problem as the message of a field; name is the field's
// name as messages show it.
func (e *InputError) AddTo(v *apperr.Validation, field string, name i18n.Message) {
	switch e.msg {
	case msgPlaces:
		v.Add(field, "msg.money.places", "field", name)
	case msgRange:
		v.Add(field, "msg.money.range", "field", name)
	default:
		v.Add(field, "msg.money.not_number", "field", name)
	}
}

// plainNumber is what a numeric string may hold: an optional minus, digits
// and an optional fraction (no exponent, no thousands separators).
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// maxInputLen bounds the text of an input amount, so a hostile body cannot
// make the parser build huge numbers.
const maxInputLen = 40

// Parse reads a plain decimal string ("1250", "-12.5", "0.10").
func Parse(s string) (Amount, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxInputLen || !plainNumber.MatchString(s) {
		return Amount{}, &InputError{msgNotNumber}
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Amount{}, &InputError{msgNotNumber}
	}
	return check(d)
}

// parseJSON reads a JSON number (exponents allowed, as JSON allows them) or a
// string holding a plain decimal.
func parseJSON(raw []byte) (Amount, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return Amount{}, &InputError{msgNotNumber}
		}
		return Parse(s)
	}
	if len(raw) == 0 || len(raw) > maxInputLen || !json.Valid(raw) || !isJSONNumber(raw) {
		return Amount{}, &InputError{msgNotNumber}
	}
	d, err := decimal.NewFromString(string(raw))
	if err != nil {
		// A valid JSON number the decimal parser refuses has an absurd
		// exponent: huge (out of range) or tiny (too many places).
		if bytes.Contains(bytes.ToLower(raw), []byte("e-")) {
			return Amount{}, &InputError{msgPlaces}
		}
		return Amount{}, &InputError{msgRange}
	}
	return check(d)
}

func isJSONNumber(raw []byte) bool {
	c := raw[0]
	return c == '-' || (c >= '0' && c <= '9')
}

// check enforces two places and the numeric(10,2) range. Trailing zeros are
// fine (1.500 is 1.50); a third significant decimal is not. The exponent is
// bounded first: the input is at most 40 characters, so anything outside
// ±40 is either out of range or has too many places, and no huge power of
// ten is ever computed.
func check(d decimal.Decimal) (Amount, error) {
	if d.IsZero() {
		return Amount{}, nil
	}
	exp := d.Exponent()
	if exp > maxInputLen {
		return Amount{}, &InputError{msgRange}
	}
	if exp < -maxInputLen || !d.Equal(d.Round(Places)) {
		return Amount{}, &InputError{msgPlaces}
	}
	if d.Abs().Cmp(Limit) >= 0 {
		return Amount{}, &InputError{msgRange}
	}
	return New(d), nil
}

// Input is an amount as a request carries it: absent, null, a JSON number or
// a numeric string. It keeps the raw text so the service can validate it
// with a field message (422) instead of the decoder failing the whole body.
type Input struct {
	raw []byte
}

// UnmarshalJSON keeps the raw value.
func (in *Input) UnmarshalJSON(b []byte) error {
	in.raw = append([]byte(nil), b...)
	return nil
}

// MarshalJSON writes the raw value back (null when absent).
func (in Input) MarshalJSON() ([]byte, error) {
	if in.Given() {
		return in.raw, nil
	}
	return []byte("null"), nil
}

// Given reports whether a non-null value was sent.
func (in Input) Given() bool {
	return len(in.raw) > 0 && string(bytes.TrimSpace(in.raw)) != "null"
}

// Parse reads the value; call it only when Given.
func (in Input) Parse() (Amount, error) { return parseJSON(in.raw) }

// NormalizeCurrency upper-cases a currency code; ok is false when it is
// not the code of a currency in use (ISO 4217, as the Unicode CLDR data of
// golang.org/x/text lists the legal tender of today's countries): "XYZ",
// "KC" and "EURO" are refused (docs/finance.md, "Currencies").
func NormalizeCurrency(s string) (string, bool) {
	s = strings.ToUpper(strings.TrimSpace(s))
	return s, inUse[s]
}

// inUse are the codes of the currencies in use, read once.
var inUse = func() map[string]bool {
	set := map[string]bool{}
	for it := currency.Query(); it.Next(); {
		if it.IsTender() {
			set[it.Unit().String()] = true
		}
	}
	return set
}()

// Offered are the currencies the pages offer to choose from, the ones road
// transport in and around central Europe pays in; a company's own currency
// and a record's stored one are offered too (Choices). The API takes any
// currency in use.
var Offered = []string{"CZK", "EUR", "PLN", "HUF", "RON", "BGN", "UAH", "CHF", "GBP", "DKK", "SEK", "NOK", "USD"}

// Choices are the currencies a form offers: first, the company's currency,
// then Offered, then current when it is none of them (a record stored in
// another currency keeps it until changed). Codes that are not in use are
// left out.
func Choices(company, current string) []string {
	out := make([]string, 0, len(Offered)+2)
	for _, c := range append(append([]string{company}, Offered...), current) {
		if c, ok := NormalizeCurrency(c); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// TextInput is an amount typed into a form as an Input: empty text is no
// amount, anything else is read as a numeric string (a field message when
// it is not one).
func TextInput(s string) Input {
	if strings.TrimSpace(s) == "" {
		return Input{}
	}
	b, _ := json.Marshal(s)
	return Input{raw: b}
}
