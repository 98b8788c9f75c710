// Package export writes tables (a header row, then rows of typed cells) as
// CSV or XLSX, one row at a time, so an export of any size is streamed to
// the client without being held in memory. The finance ledger export, the
// drivers export and the compliance report use it (docs/import-export.md).
package export

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
)

// Format is a file format of an export.
type Format string

// The formats.
const (
	CSV  Format = "csv"
	XLSX Format = "xlsx"
)

// ParseFormat reads a format name; ok is false for any other name.
func ParseFormat(s string) (Format, bool) {
	switch Format(s) {
	case CSV, XLSX:
		return Format(s), true
	}
	return "", false
}

// ContentType is the media type of the format.
func (f Format) ContentType() string {
	if f == XLSX {
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	}
	return "text/csv; charset=utf-8"
}

// Extension is the file name extension of the format, without the dot.
func (f Format) Extension() string { return string(f) }

// Cell is one value of a row: text, a number or a calendar day. CSV writes
// numbers with a decimal point and days as ISO dates (2026-11-21); XLSX
// writes real number and date cells, so a spreadsheet sums and sorts them.
type Cell struct {
	kind    cellKind
	text    string
	number  decimal.Decimal
	integer int64
	day     civil.Date
	fill    string // XLSX background colour (RRGGBB), "" for none
}

type cellKind int

const (
	textCell cellKind = iota
	numberCell
	intCell
	dateCell
)

// Text is a text cell.
func Text(s string) Cell { return Cell{kind: textCell, text: s} }

// Number is a number cell (an amount: two decimals are written).
func Number(d decimal.Decimal) Cell { return Cell{kind: numberCell, number: d} }

// Int is a whole number cell (a count, days left).
func Int(n int64) Cell { return Cell{kind: intCell, integer: n} }

// OptionalInt is Int of *n, an empty cell for nil.
func OptionalInt(n *int) Cell {
	if n == nil {
		return Text("")
	}
	return Int(int64(*n))
}

// Fill returns the cell with a background colour (six hex digits, RRGGBB)
// in XLSX; CSV has no colours and ignores it.
func (c Cell) Fill(rgb string) Cell {
	c.fill = rgb
	return c
}

// Date is a calendar day cell; a zero day is an empty cell.
func Date(d civil.Date) Cell {
	if d.IsZero() {
		return Text("")
	}
	return Cell{kind: dateCell, day: d}
}

// OptionalText is Text of *s, an empty cell for nil.
func OptionalText(s *string) Cell {
	if s == nil {
		return Text("")
	}
	return Text(*s)
}

// OptionalDate is Date of *d, an empty cell for nil.
func OptionalDate(d *civil.Date) Cell {
	if d == nil {
		return Text("")
	}
	return Date(*d)
}

// Writer writes one table. Header first, then rows, then Close, which
// flushes what is buffered (for XLSX: the end of the workbook).
type Writer interface {
	Header(names []string) error
	Row(cells []Cell) error
	Close() error
}

// New returns a writer of the format onto w.
func New(f Format, w io.Writer, sheet string) (Writer, error) {
	if f == XLSX {
		return newXLSX(w, sheet)
	}
	return newCSV(w)
}

// The characters a spreadsheet starts a formula with (CSV injection,
// docs/import-export.md), and the ones a reader may split a cell at: the
// comma and the semicolon (Czech Excel and LibreOffice split on ";"), a tab
// and line breaks.
const (
	triggers   = "=+-@\t\r"
	separators = ",;\t\r\n"
)

// Defuse keeps a spreadsheet from running a CSV text cell as a formula,
// whatever separator it reads the file with: the cell, and each piece after
// a separator, that starts (after spaces) with =, +, -, @, a tab or a
// carriage return gets an apostrophe in front (`ok;=1+2` becomes
// `ok;'=1+2`), which spreadsheets show as text. An apostrophe the text
// already has there gets one more, so that Undefuse, which the import
// applies, gives every text back exactly. Numbers and dates are written by
// their own cell kinds and never pass here.
func Defuse(s string) string {
	if !strings.ContainsAny(s, triggers) {
		return s
	}
	var b strings.Builder
	last := 0
	for i := range len(s) {
		if (i == 0 || strings.IndexByte(separators, s[i-1]) >= 0) && formulaStart(s[i:]) {
			b.WriteString(s[last:i])
			b.WriteByte('\'')
			last = i
		}
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Undefuse removes the apostrophes Defuse added.
func Undefuse(s string) string {
	if !strings.Contains(s, "'") {
		return s
	}
	var b strings.Builder
	last := 0
	for i := range len(s) {
		if (i == 0 || strings.IndexByte(separators, s[i-1]) >= 0) && s[i] == '\'' && formulaStart(s[i+1:]) {
			b.WriteString(s[last:i])
			last = i + 1
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// formulaStart reports whether s starts with apostrophes, then spaces, then
// a character that starts a formula: the pieces Defuse puts an apostrophe
// in front of.
func formulaStart(s string) bool {
	s = strings.TrimLeft(strings.TrimLeft(s, "'"), " ")
	return s != "" && strings.IndexByte(triggers, s[0]) >= 0
}

// csvWriter writes RFC 4180 CSV in UTF-8, starting with a byte order
// mark so that a spreadsheet opening the file reads the accents right. A
// field is quoted when it holds a separator a reader may split on (the
// semicolon too, which encoding/csv leaves bare), a quote, or starts with
// a space, so a spreadsheet reading the file with ";" keeps it one cell.
type csvWriter struct {
	w    *bufio.Writer
	rows int
}

func newCSV(w io.Writer) (*csvWriter, error) {
	if _, err := io.WriteString(w, "\ufeff"); err != nil {
		return nil, fmt.Errorf("write csv: %w", err)
	}
	return &csvWriter{w: bufio.NewWriter(w)}, nil
}

// write writes one record, its fields quoted where needed.
func (c *csvWriter) write(rec []string) error {
	for i, f := range rec {
		if i > 0 {
			c.w.WriteByte(',')
		}
		if f == "" || (!strings.ContainsAny(f, separators+`"`) && f[0] != ' ') {
			c.w.WriteString(f)
			continue
		}
		c.w.WriteByte('"')
		c.w.WriteString(strings.ReplaceAll(f, `"`, `""`))
		c.w.WriteByte('"')
	}
	// bufio.Writer keeps its first error and returns it from every later call.
	return c.w.WriteByte('\n')
}

func (c *csvWriter) Header(names []string) error {
	if err := c.write(names); err != nil {
		return fmt.Errorf("write csv header: %w", err)
	}
	return nil
}

func (c *csvWriter) Row(cells []Cell) error {
	rec := make([]string, len(cells))
	for i, cell := range cells {
		switch cell.kind {
		case numberCell:
			rec[i] = cell.number.StringFixed(2)
		case intCell:
			rec[i] = strconv.FormatInt(cell.integer, 10)
		case dateCell:
			rec[i] = cell.day.String()
		default:
			rec[i] = Defuse(cell.text)
		}
	}
	if err := c.write(rec); err != nil {
		return fmt.Errorf("write csv row: %w", err)
	}
	// Flush every so often: the rows reach the client as they are read.
	if c.rows++; c.rows%100 == 0 {
		if err := c.w.Flush(); err != nil {
			return fmt.Errorf("write csv row: %w", err)
		}
	}
	return nil
}

func (c *csvWriter) Close() error {
	if err := c.w.Flush(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// FormatParam reads the format of an export request: csv when empty, 422
// for another name.
func FormatParam(s string) (Format, error) {
	if s == "" {
		return CSV, nil
	}
	f, ok := ParseFormat(s)
	if !ok {
		return "", apperr.Invalid("format", "msg.export.format")
	}
	return f, nil
}
