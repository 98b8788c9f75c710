package imports

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/apperr"
)

// excelizeRows reads the first sheet as the import read it with excelize
// before it had a reader of its own: raw values, trimmed, row numbers as
// the file's.
func excelizeRows(t *testing.T, data []byte) map[int][]string {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.Rows(f.GetSheetList()[0])
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	line := 0
	for rows.Next() {
		line++
		rec, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		blank := true
		for i, c := range rec {
			rec[i] = strings.TrimSpace(c)
			blank = blank && rec[i] == ""
		}
		if !blank {
			out[line] = rec
		}
	}
	return out
}

// tableRows is a table as excelizeRows answers.
func tableRows(tb Table) map[int][]string {
	out := map[int][]string{1: tb.Header}
	for _, r := range tb.Rows {
		out[r.Line] = r.Cells
	}
	return out
}

// A workbook with every kind of cell reads as excelize read it: shared and
// inline strings, rich text, escaped characters, numbers, dates, booleans,
// formulas with and without a stored result, gaps between cells and rows,
// a second sheet that is not read.
func TestReadXLSXAsExcelize(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	sh := "Řidiči"
	if err := f.SetSheetName("Sheet1", sh); err != nil {
		t.Fatal(err)
	}
	set := func(cell string, v any) {
		if err := f.SetCellValue(sh, cell, v); err != nil {
			t.Fatal(err)
		}
	}
	for i, h := range []string{"first_name", "last_name", "email", "hire_date", "notes", "count", "active"} {
		col, _ := excelize.ColumnNumberToName(i + 1)
		set(col+"1", h)
	}
	set("A2", "  Jiří  ")
	set("B2", "Dvořák & <Syn> \"A\" 'B'")
	set("C2", "jiri@example.test")
	set("D2", time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC))
	set("E2", "line\r\nbreak _x0041_ literal")
	set("F2", 42.5)
	set("G2", true)
	// Row 3 left out; row 4 has gaps and a formula.
	set("B4", "Nováková")
	set("E4", 12345678901234)
	if err := f.SetCellFormula(sh, "F4", "1+1"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellFormula(sh, "G4", `WEBSERVICE("http://attacker.example/")`); err != nil {
		t.Fatal(err)
	}
	set("G4", "stored result")
	if err := f.SetCellRichText(sh, "A5", []excelize.RichTextRun{{Text: "Bo"}, {Text: "ld", Font: &excelize.Font{Bold: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellStr(sh, "C5", strings.Repeat("ž", MaxCellChars)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.NewSheet("Lists"); err != nil {
		t.Fatal(err)
	}
	if err := f.SetCellValue("Lists", "A1", "not read"); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}

	// The stream writer writes inline strings.
	s := excelize.NewFile()
	defer s.Close()
	sw, err := s.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	_ = sw.SetRow("A1", []any{"first_name", "last_name", "email"})
	_ = sw.SetRow("A2", []any{"Eva", " Malá ", "eva@example.test"})
	_ = sw.SetRow("B4", []any{"Černá", 3})
	if err := sw.Flush(); err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	if err := s.Write(&streamed); err != nil {
		t.Fatal(err)
	}

	for name, data := range map[string][]byte{"workbook": buf.Bytes(), "stream writer": streamed.Bytes()} {
		t.Run(name, func(t *testing.T) {
			tb, err := Read(data)
			if err != nil {
				t.Fatal(err)
			}
			got, want := tableRows(tb), excelizeRows(t, data)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read\n%#v\nexcelize read\n%#v", got, want)
			}
		})
	}
}

// sheetFile is a minimal workbook with the given sheet XML (the rows inside
// sheetData) and shared strings.
func sheetFile(t *testing.T, rows string, shared ...string) []byte {
	t.Helper()
	return zipOf(t, sheetParts(rows, shared...))
}

func sheetParts(rows string, shared ...string) map[string]string {
	var sst strings.Builder
	for _, s := range shared {
		sst.WriteString("<si>" + s + "</si>")
	}
	return map[string]string{
		"_rels/.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
		"xl/workbook.xml": `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ` +
			`xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="A" sheetId="1" r:id="rId1"/></sheets></workbook>`,
		"xl/_rels/workbook.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
			`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="/xl/sharedStrings.xml"/></Relationships>`,
		"xl/sharedStrings.xml":     `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` + sst.String() + `</sst>`,
		"xl/worksheets/sheet1.xml": `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + rows + `</sheetData></worksheet>`,
	}
}

// zipOf zips the parts; raw entries are written as they are (compressed,
// with their headers' sizes).
func zipOf(t *testing.T, parts map[string]string, raw ...zipRaw) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, r := range raw {
		w, err := zw.CreateRaw(r.header)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(r.data)
	}
	for name, text := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(w, text)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type zipRaw struct {
	header *zip.FileHeader
	data   []byte
}

// A file refused for what it would hold: the kind of refusal and words of
// its message.
func TestReadRefusals(t *testing.T) {
	const header = `<row r="1"><c r="A1" t="inlineStr"><is><t>first_name</t></is></c><c r="B1" t="inlineStr"><is><t>notes</t></is></c></row>`
	inline := func(s string) string {
		return header + `<row r="2"><c r="A2" t="inlineStr"><is><t>Jan</t></is></c><c r="B2" t="inlineStr"><is><t>` + s + `</t></is></c></row>`
	}
	sharedRef := header + `<row r="2"><c r="A2" t="s"><v>0</v></c></row>`
	var wide strings.Builder
	wide.WriteString(header)
	for r := 2; r < 2+MaxCells/maxColumn+2; r++ {
		fmt.Fprintf(&wide, `<row r="%d"><c r="XFD%d"><v>1</v></c></row>`, r, r)
	}
	var commas bytes.Buffer
	commas.WriteString("first_name,notes\n")
	commas.Write(bytes.Repeat([]byte(","), MaxCells))
	// A sheet that unpacks to 1 MiB and declares 100 bytes.
	var sheet bytes.Buffer
	zw := zip.NewWriter(&sheet)
	w, _ := zw.Create("sheet")
	_, _ = io.WriteString(w, `<worksheet><sheetData>`+header+strings.Repeat(" ", 1<<20)+`</sheetData></worksheet>`)
	_ = zw.Close()
	zr, _ := zip.NewReader(bytes.NewReader(sheet.Bytes()), int64(sheet.Len()))
	rc, _ := zr.File[0].OpenRaw()
	compressed, _ := io.ReadAll(rc)
	parts := sheetParts("")
	delete(parts, "xl/worksheets/sheet1.xml")
	lying := zipOf(t, parts, zipRaw{&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Deflate,
		CRC32: zr.File[0].CRC32, CompressedSize64: uint64(len(compressed)), UncompressedSize64: 100}, compressed})
	for _, tc := range []struct {
		name string
		data []byte
		kind apperr.Kind
		text string
	}{
		{"inline cell of 5001 characters", sheetFile(t, inline(strings.Repeat("ř", MaxCellChars+1))), apperr.KindValidation, "more than 5000 characters"},
		{"shared cell of 5001 characters", sheetFile(t, sharedRef, "<t>"+strings.Repeat("a", MaxCellChars+1)+"</t>"), apperr.KindValidation, "more than 5000 characters"},
		{"rich text of 5001 characters", sheetFile(t, sharedRef, "<r><t>"+strings.Repeat("a", 3000)+"</t></r><r><t>"+strings.Repeat("b", 2001)+"</t></r>"), apperr.KindValidation, "more than 5000 characters"},
		{"value of 5001 characters", sheetFile(t, header+`<row r="2"><c r="A2" t="str"><v>`+strings.Repeat("1", MaxCellChars+1)+`</v></c></row>`), apperr.KindValidation, "more than 5000 characters"},
		{"cell of 1 MiB of references", sheetFile(t, inline(strings.Repeat("&#x10FFFF;", 1<<17))), apperr.KindValidation, "more than 5000 characters"},
		{"CDATA of 1 MiB", sheetFile(t, inline("<![CDATA["+strings.Repeat("<a>", 1<<18)+"]]>")), apperr.KindValidation, "more than 5000 characters"},
		{"comment of 1 MiB", sheetFile(t, inline("<!--"+strings.Repeat("<a>", 1<<18)+"-->")), apperr.KindUnsupportedMediaType, "not a CSV or XLSX"},
		{"attribute of 1 MiB", sheetFile(t, `<row r="1" x="`+strings.Repeat("a>", 1<<19)+`"></row>`+inline("x")), apperr.KindUnsupportedMediaType, "not a CSV or XLSX"},
		{"document type", sheetFile(t, `<!DOCTYPE x [<!ENTITY a "aaaa">]>`+inline("&a;")), apperr.KindUnsupportedMediaType, "not a CSV or XLSX"},
		{"cells far to the right", sheetFile(t, wide.String()), apperr.KindPayloadTooLarge, "more than 2000000 cells"},
		{"text of 33 MiB", sheetFile(t, header, strings.Repeat("<t>"+strings.Repeat("a", 4000)+"</t></si><si>", 33<<20/4000)+"<t>a</t>"), apperr.KindPayloadTooLarge, "32 MiB of text"},
		{"shared string that is not there", sheetFile(t, sharedRef), apperr.KindValidation, "cannot be read"},
		{"entry larger than declared", lying, apperr.KindValidation, "cannot be read"},
		{"CSV of separators", commas.Bytes(), apperr.KindPayloadTooLarge, "more than 2000000 cells"},
		{"CSV cell of 5001 characters", []byte("first_name,notes\nJan," + strings.Repeat("a", MaxCellChars+1) + "\n"), apperr.KindValidation, "more than 5000 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.data)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Kind != tc.kind || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %v (kind %d), want kind %d with %q", err, apperr.KindOf(err), tc.kind, tc.text)
			}
		})
	}

	// At the limits: a cell of exactly 5000 characters is read.
	tb, err := Read(sheetFile(t, inline(strings.Repeat("ř", MaxCellChars))))
	if err != nil || len(tb.Rows) != 1 || len([]rune(tb.Rows[0].Cells[1])) != MaxCellChars {
		t.Errorf("a cell of %d characters: %v", MaxCellChars, err)
	}
}
