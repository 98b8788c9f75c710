// Package imports brings a carrier's driver list in from a CSV or XLSX file
// (docs/import-export.md): it reads the file (encodings, separators,
// spreadsheets with their limits), matches its columns to driver fields by
// header, keeps each import as a row with its result, and runs large files
// as a River job. The checks and writes of the drivers themselves are the
// drivers service's (drivers.Service.Import).
package imports

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/export"
)

// MaxRows is the most data rows a file may hold.
const MaxRows = 20000

// maxUnpacked bounds what an XLSX file may unpack to (all its parts
// together): a zip bomb is refused while it is being counted, with memory
// bounded by the copy buffer.
const maxUnpacked = 200 << 20

// Table is a file as read: its header row and data rows (blank rows left
// out), each cell trimmed.
type Table struct {
	Format   string // csv or xlsx
	Encoding string // utf-8 or windows-1250 (CSV)
	Header   []string
	Rows     []Row
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
	r := csv.NewReader(bytes.NewReader(data))
	r.Comma, r.FieldsPerRecord, r.LazyQuotes = sep, -1, true
	line := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Table{}, apperr.Invalid("file", "msg.imports.csv", "error", err.Error())
		}
		line, _ = r.FieldPos(0)
		for i, c := range rec {
			rec[i] = export.Undefuse(strings.TrimSpace(c))
		}
		if err := t.add(line, rec); err != nil {
			return Table{}, err
		}
	}
	return t, nil
}

// add appends a record: the first non-blank one is the header.
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

// readXLSX checks what the zip unpacks to, then reads the first sheet row
// by row with the raw cell values (a date cell gives its day number, a
// formula its stored result).
func readXLSX(data []byte) (Table, error) {
	if err := checkUnpacked(data); err != nil {
		return Table{}, err
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit: maxUnpacked, UnzipXMLSizeLimit: 16 << 20})
	if err != nil {
		return Table{}, unsupported()
	}
	defer f.Close()
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		return Table{}, apperr.Invalid("file", "msg.imports.empty")
	}
	rows, err := f.Rows(sheets[0])
	if err != nil {
		return Table{}, unsupported()
	}
	defer rows.Close()
	t := Table{Format: "xlsx"}
	line := 0
	for rows.Next() {
		line++
		rec, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			return Table{}, apperr.Invalid("file", "msg.imports.csv", "error", err.Error())
		}
		for i, c := range rec {
			rec[i] = strings.TrimSpace(c)
		}
		if err := t.add(line, rec); err != nil {
			return Table{}, err
		}
	}
	if err := rows.Error(); err != nil {
		return Table{}, unsupported()
	}
	return t, nil
}

// checkUnpacked refuses a zip whose parts unpack to more than maxUnpacked
// bytes, counting what really comes out (declared sizes can lie); 415 when
// it is not a zip at all.
func checkUnpacked(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return unsupported()
	}
	var total int64
	for _, zf := range zr.File {
		if zf.UncompressedSize64 > maxUnpacked {
			return apperr.PayloadTooLarge("msg.imports.unpacked", "max", maxUnpacked>>20)
		}
		rc, err := zf.Open()
		if err != nil {
			return unsupported()
		}
		n, err := io.Copy(io.Discard, io.LimitReader(rc, maxUnpacked-total+1))
		rc.Close()
		if err != nil {
			return unsupported()
		}
		if total += n; total > maxUnpacked {
			return apperr.PayloadTooLarge("msg.imports.unpacked", "max", maxUnpacked>>20)
		}
	}
	return nil
}

// describe is a short text of a table for logs.
func (t Table) describe() string {
	return fmt.Sprintf("%s (%s), %d columns, %d rows", t.Format, t.Encoding, len(t.Header), len(t.Rows))
}
