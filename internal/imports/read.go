// Package imports brings a carrier's driver list in from a CSV or XLSX file
// (docs/import-export.md): it reads the file (encodings, separators,
// spreadsheets with their limits), matches its columns to driver fields by
// header, keeps each import as a row with its result, and runs large files
// as a River job. The checks and writes of the drivers themselves are the
// drivers service's (drivers.Service.Import).
package imports

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/export"
)

// MaxRows is the most data rows a file may hold.
const MaxRows = 20000

// maxUnpacked bounds what an XLSX file may unpack to (all its parts
// together, as declared and as read): a zip bomb is refused before or
// while it is unpacked, never held (xlsx.go).
const maxUnpacked = 200 << 20

// What one file may hold once read, whatever its format, so that an import
// holds a bounded amount of memory (docs/import-export.md): no cell longer
// than MaxCellChars characters (no field takes more), at most MaxCells
// cells (a row's cells up to its last one with a value, the header
// included) and maxText bytes of text in all.
const (
	MaxCellChars = 5000
	MaxCells     = 2_000_000
	maxText      = 32 << 20
)

// Table is a file as read: its header row and data rows (blank rows left
// out), each cell trimmed.
type Table struct {
	Format   string // csv or xlsx
	Encoding string // utf-8 or windows-1250 (CSV)
	Header   []string
	Rows     []Row
	// cells and text count what the table holds (hold).
	cells, text int
}

// Row is a data row and its row number in the file (the header is row 1).
type Row struct {
	Line  int
	Cells []string
}

// Read reads a CSV (UTF-8 with or without a byte order mark, or
// Windows-1250 as Czech Excel saves it; comma or semicolon) or an XLSX file
// (the first sheet; cell values as stored, formulas never evaluated).
// Anything else is 415; an empty file, a header without rows or more than
// MaxRows rows is 422.
func Read(data []byte) (Table, error) {
	if len(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))) == 0 {
		return Table{}, apperr.Invalid("file", "msg.imports.empty")
	}
	var t Table
	var err error
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		t, err = readXLSX(data)
	} else {
		t, err = readCSV(data)
	}
	if err != nil {
		return Table{}, err
	}
	if len(t.Header) == 0 {
		return Table{}, apperr.Invalid("file", "msg.imports.empty")
	}
	if len(t.Rows) == 0 {
		return Table{}, apperr.Invalid("file", "msg.imports.no_rows")
	}
	return t, nil
}

func unsupported() error { return apperr.UnsupportedMediaType("msg.imports.type") }

// readCSV decodes the text, picks the separator from the header line and
// reads the records.
func readCSV(data []byte) (Table, error) {
	t := Table{Format: "csv", Encoding: "utf-8"}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if !utf8.Valid(data) {
		decoded, err := charmap.Windows1250.NewDecoder().Bytes(data)
		if err != nil {
			return Table{}, unsupported()
		}
		data, t.Encoding = decoded, "windows-1250"
	}
	// A binary file (PDF, image, an old .xls) is not text: it holds
	// control characters a spreadsheet's CSV never does.
	if bytes.ContainsFunc(data, func(r rune) bool {
		return r == 0 || (unicode.IsControl(r) && r != '\t' && r != '\r' && r != '\n')
	}) {
		return Table{}, unsupported()
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	sep := ','
	if bytes.Count(first, []byte(";")) > bytes.Count(first, []byte(",")) {
		sep = ';'
	}
	// The CSV reader holds a whole record at once: a file of separators
	// alone would be millions of cells in one record. Every separator and
	// line counts as a cell, those in quoted text too.
	if bytes.Count(data, []byte{byte(sep)})+bytes.Count(data, []byte("\n")) > MaxCells {
		return Table{}, tooMuch()
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord, r.LazyQuotes = sep, -1, true
	line := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// With lazy quotes and any number of fields, what is left is
			// a quoted text that never ends; the line is where it starts.
			at := line + 2
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				at = pe.StartLine
			}
			return Table{}, apperr.Invalid("file", "msg.imports.csv", "line", at)
		}
		line, _ = r.FieldPos(0)
		text := 0
		for i, c := range rec {
			if err := cellLength(len(c), c); err != nil {
				return Table{}, err
			}
			rec[i] = export.Undefuse(strings.TrimSpace(c))
			text += len(rec[i])
		}
		if err := t.hold(len(rec), text); err != nil {
			return Table{}, err
		}
		if err := t.add(line, rec); err != nil {
			return Table{}, err
		}
	}
	return t, nil
}

// hold counts cells and bytes of text against the limits of one file (413
// beyond them).
func (t *Table) hold(cells, text int) error {
	t.cells += cells
	t.text += text
	if t.cells > MaxCells || t.text > maxText {
		return tooMuch()
	}
	return nil
}

func tooMuch() error {
	return apperr.PayloadTooLarge("msg.imports.too_large", "cells", MaxCells, "max", maxText>>20)
}

// add appends a record (counted by hold): the first non-blank one is the
// header.
func (t *Table) add(line int, rec []string) error {
	blank := true
	for _, c := range rec {
		if c != "" {
			blank = false
			break
		}
	}
	if blank {
		return nil
	}
	if t.Header == nil {
		t.Header = rec
		return nil
	}
	if len(t.Rows) == MaxRows {
		return apperr.Invalid("file", "msg.imports.too_many_rows", "max", MaxRows)
	}
	t.Rows = append(t.Rows, Row{Line: line, Cells: rec})
	return nil
}

// describe is a short text of a table for logs.
func (t Table) describe() string {
	return fmt.Sprintf("%s (%s), %d columns, %d rows", t.Format, t.Encoding, len(t.Header), len(t.Rows))
}
