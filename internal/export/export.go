// Package export writes tables (a header row, then rows of typed cells) as
// CSV or XLSX, one row at a time, so an export of any size is streamed to
// the client without being held in memory. The finance ledger export uses
// it; any other list export (drivers, the compliance report) writes its
// rows the same way (docs/finance.md, "Export").
package export

import (
	"encoding/csv"
	"fmt"
	"io"
	"time"

	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

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
	kind   cellKind
	text   string
	number decimal.Decimal
	day    civil.Date
}

type cellKind int

const (
	textCell cellKind = iota
	numberCell
	dateCell
)

// Text is a text cell.
func Text(s string) Cell { return Cell{kind: textCell, text: s} }

// Number is a number cell (an amount: two decimals are written).
func Number(d decimal.Decimal) Cell { return Cell{kind: numberCell, number: d} }

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

// csvWriter writes RFC 4180 CSV in UTF-8, starting with a byte order
// mark so that a spreadsheet opening the file reads the accents right.
type csvWriter struct {
	w    *csv.Writer
	rows int
}

func newCSV(w io.Writer) (*csvWriter, error) {
	if _, err := io.WriteString(w, "\ufeff"); err != nil {
		return nil, fmt.Errorf("write csv: %w", err)
	}
	return &csvWriter{w: csv.NewWriter(w)}, nil
}

func (c *csvWriter) Header(names []string) error { return c.w.Write(names) }

func (c *csvWriter) Row(cells []Cell) error {
	rec := make([]string, len(cells))
	for i, cell := range cells {
		switch cell.kind {
		case numberCell:
			rec[i] = cell.number.StringFixed(2)
		case dateCell:
			rec[i] = cell.day.String()
		default:
			rec[i] = cell.text
		}
	}
	if err := c.w.Write(rec); err != nil {
		return fmt.Errorf("write csv row: %w", err)
	}
	// Flush every so often: the rows reach the client as they are read.
	if c.rows++; c.rows%100 == 0 {
		c.w.Flush()
		return c.w.Error()
	}
	return nil
}

func (c *csvWriter) Close() error {
	c.w.Flush()
	return c.w.Error()
}

// xlsxWriter streams rows into one sheet with excelize's StreamWriter
// (rows go to a temporary file, not memory); Close writes the workbook.
type xlsxWriter struct {
	out    io.Writer
	file   *excelize.File
	sw     *excelize.StreamWriter
	row    int
	number int // style ids
	date   int
	bold   int
}

func newXLSX(w io.Writer, sheet string) (*xlsxWriter, error) {
	f := excelize.NewFile()
	if sheet == "" {
		sheet = "Sheet1"
	}
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return nil, fmt.Errorf("name sheet: %w", err)
	}
	x := &xlsxWriter{out: w, file: f}
	var err error
	numFmt := "#,##0.00"
	if x.number, err = f.NewStyle(&excelize.Style{CustomNumFmt: &numFmt}); err != nil {
		return nil, fmt.Errorf("number style: %w", err)
	}
	// 14 is the built-in short date, shown in the reader's locale.
	if x.date, err = f.NewStyle(&excelize.Style{NumFmt: 14}); err != nil {
		return nil, fmt.Errorf("date style: %w", err)
	}
	if x.bold, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return nil, fmt.Errorf("header style: %w", err)
	}
	if x.sw, err = f.NewStreamWriter(sheet); err != nil {
		return nil, fmt.Errorf("stream writer: %w", err)
	}
	return x, nil
}

func (x *xlsxWriter) Header(names []string) error {
	cells := make([]any, len(names))
	for i, n := range names {
		cells[i] = excelize.Cell{StyleID: x.bold, Value: n}
	}
	return x.next(cells)
}

func (x *xlsxWriter) Row(row []Cell) error {
	cells := make([]any, len(row))
	for i, c := range row {
		switch c.kind {
		case numberCell:
			// A spreadsheet number is a binary double; an amount of two
			// decimals below 10^8 converts to the double whose shortest
			// decimal form is the amount itself.
			cells[i] = excelize.Cell{StyleID: x.number, Value: c.number.Round(2).InexactFloat64()}
		case dateCell:
			cells[i] = excelize.Cell{StyleID: x.date, Value: time.Date(c.day.Year(), c.day.Month(), c.day.Day(), 0, 0, 0, 0, time.UTC)}
		default:
			cells[i] = c.text
		}
	}
	return x.next(cells)
}

func (x *xlsxWriter) next(cells []any) error {
	x.row++
	at, err := excelize.CoordinatesToCellName(1, x.row)
	if err != nil {
		return err
	}
	if err := x.sw.SetRow(at, cells); err != nil {
		return fmt.Errorf("write xlsx row %d: %w", x.row, err)
	}
	return nil
}

func (x *xlsxWriter) Close() error {
	defer x.file.Close()
	if err := x.sw.Flush(); err != nil {
		return fmt.Errorf("finish sheet: %w", err)
	}
	if _, err := x.file.WriteTo(x.out); err != nil {
		return fmt.Errorf("write workbook: %w", err)
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
