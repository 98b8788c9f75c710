package export

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// xlsxWriter writes an Office Open XML workbook of one sheet straight into
// the output as a zip stream: each row is encoded and compressed as it
// comes, nothing is spooled, so memory stays flat whatever the number of
// rows (docs/import-export.md). The styles part, which lists the fill
// colours the rows used, is written last.
//
// Text cells are inline strings, never formulas: a spreadsheet does not run
// them. Numbers are number cells (amounts with "#,##0.00"), days are date
// serial numbers with the built-in short date format 14, shown in the
// reader's locale.
type xlsxWriter struct {
	zip   *zip.Writer
	sheet *bufio.Writer
	name  string
	row   int
	fills []string       // fill colours in order of first use
	fill  map[string]int // colour → index in fills
	buf   []byte
}

// The style ids (cellXfs) of the styles part: 0 plain, 1 bold header, 2
// amount, 3 date, then for each fill colour k: 4+3k text, 5+3k number,
// 6+3k date.
const (
	styleBold   = 1
	styleNumber = 2
	styleDate   = 3
)

func newXLSX(w io.Writer, sheet string) (*xlsxWriter, error) {
	if sheet == "" {
		sheet = "Sheet1"
	}
	// A sheet name is at most 31 characters, without []:*?/\.
	sheet = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) {
			return '_'
		}
		return r
	}, sheet)
	if utf8.RuneCountInString(sheet) > 31 {
		sheet = string([]rune(sheet)[:31])
	}
	x := &xlsxWriter{zip: zip.NewWriter(w), name: sheet, fill: map[string]int{}}
	for _, part := range []struct{ name, body string }{
		{"[Content_Types].xml", contentTypesXML},
		{"_rels/.rels", rootRelsXML},
		{"xl/_rels/workbook.xml.rels", workbookRelsXML},
		{"xl/workbook.xml", fmt.Sprintf(workbookXML, escapeAttr(sheet))},
	} {
		if err := x.part(part.name, part.body); err != nil {
			return nil, err
		}
	}
	f, err := x.zip.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		return nil, fmt.Errorf("xlsx sheet: %w", err)
	}
	x.sheet = bufio.NewWriterSize(f, 32<<10)
	if _, err := x.sheet.WriteString(sheetStart); err != nil {
		return nil, fmt.Errorf("xlsx sheet: %w", err)
	}
	return x, nil
}

func (x *xlsxWriter) part(name, body string) error {
	f, err := x.zip.Create(name)
	if err != nil {
		return fmt.Errorf("xlsx %s: %w", name, err)
	}
	if _, err := io.WriteString(f, body); err != nil {
		return fmt.Errorf("xlsx %s: %w", name, err)
	}
	return nil
}

func (x *xlsxWriter) Header(names []string) error {
	cells := make([]Cell, len(names))
	for i, n := range names {
		cells[i] = Text(n)
	}
	return x.write(cells, true)
}

// Row writes the cells.
func (x *xlsxWriter) Row(row []Cell) error { return x.write(row, false) }

func (x *xlsxWriter) write(row []Cell, header bool) error {
	x.row++
	b := x.buf[:0]
	b = append(b, `<row r="`...)
	b = strconv.AppendInt(b, int64(x.row), 10)
	b = append(b, `">`...)
	for i, c := range row {
		if c.kind == textCell && c.text == "" && c.fill == "" {
			continue // an empty cell is left out
		}
		base := 0
		if c.fill != "" {
			k, ok := x.fill[c.fill]
			if !ok {
				k = len(x.fills)
				x.fills = append(x.fills, c.fill)
				x.fill[c.fill] = k
			}
			base = 4 + 3*k
		}
		b = append(b, `<c r="`...)
		b = appendColumn(b, i)
		b = strconv.AppendInt(b, int64(x.row), 10)
		b = append(b, '"')
		style := 0
		switch c.kind {
		case numberCell:
			style = styleNumber
			if base > 0 {
				style = base + 1
			}
			b = append(b, ` s="`...)
			b = strconv.AppendInt(b, int64(style), 10)
			b = append(b, `"><v>`...)
			b = append(b, c.number.Round(2).String()...)
			b = append(b, `</v></c>`...)
		case intCell:
			if base > 0 {
				b = append(b, ` s="`...)
				b = strconv.AppendInt(b, int64(base), 10)
				b = append(b, '"')
			}
			b = append(b, `><v>`...)
			b = strconv.AppendInt(b, c.integer, 10)
			b = append(b, `</v></c>`...)
		case dateCell:
			style = styleDate
			if base > 0 {
				style = base + 2
			}
			b = append(b, ` s="`...)
			b = strconv.AppendInt(b, int64(style), 10)
			b = append(b, `"><v>`...)
			b = strconv.AppendInt(b, serial(c), 10)
			b = append(b, `</v></c>`...)
		default:
			if header {
				style = styleBold
			} else if base > 0 {
				style = base
			}
			if style > 0 {
				b = append(b, ` s="`...)
				b = strconv.AppendInt(b, int64(style), 10)
				b = append(b, '"')
			}
			b = append(b, ` t="inlineStr"><is><t xml:space="preserve">`...)
			b = appendEscaped(b, c.text)
			b = append(b, `</t></is></c>`...)
		}
	}
	b = append(b, `</row>`...)
	x.buf = b
	if _, err := x.sheet.Write(b); err != nil {
		return fmt.Errorf("write xlsx row %d: %w", x.row, err)
	}
	return nil
}

// excelEpoch is day 0 of spreadsheet date serials (1900 date system, past
// its leap-year quirk).
var excelEpoch = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)

func serial(c Cell) int64 {
	d := time.Date(c.day.Year(), c.day.Month(), c.day.Day(), 0, 0, 0, 0, time.UTC)
	return int64(d.Sub(excelEpoch).Hours() / 24)
}

// appendColumn appends the column letters of index i (0 → A, 26 → AA).
func appendColumn(b []byte, i int) []byte {
	var letters [4]byte
	n := len(letters)
	for i++; i > 0; i = (i - 1) / 26 {
		n--
		letters[n] = byte('A' + (i-1)%26)
	}
	return append(b, letters[n:]...)
}

// appendEscaped appends s escaped for XML text, leaving out the characters
// XML 1.0 cannot hold (control characters other than tab and newlines,
// invalid UTF-8), which would make the file unreadable.
func appendEscaped(b []byte, s string) []byte {
	for _, r := range s {
		switch {
		case r == '<':
			b = append(b, "&lt;"...)
		case r == '>':
			b = append(b, "&gt;"...)
		case r == '&':
			b = append(b, "&amp;"...)
		case r == '\r':
			b = append(b, "&#13;"...)
		case r == utf8.RuneError, r < 0x20 && r != '\t' && r != '\n', r == 0xFFFE, r == 0xFFFF:
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

func escapeAttr(s string) string {
	var sb strings.Builder
	_ = xml.EscapeText(&sb, []byte(s))
	return strings.ReplaceAll(sb.String(), `"`, "&quot;")
}

// Close ends the sheet, writes the styles with the fills used and ends the
// zip stream.
func (x *xlsxWriter) Close() error {
	if _, err := x.sheet.WriteString(sheetEnd); err != nil {
		return fmt.Errorf("finish xlsx sheet: %w", err)
	}
	if err := x.sheet.Flush(); err != nil {
		return fmt.Errorf("finish xlsx sheet: %w", err)
	}
	if err := x.part("xl/styles.xml", x.styles()); err != nil {
		return err
	}
	if err := x.zip.Close(); err != nil {
		return fmt.Errorf("finish xlsx: %w", err)
	}
	return nil
}

func (x *xlsxWriter) styles() string {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`)
	sb.WriteString(`<numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0.00"/></numFmts>`)
	sb.WriteString(`<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>`)
	fmt.Fprintf(&sb, `<fills count="%d"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>`, 2+len(x.fills))
	for _, rgb := range x.fills {
		fmt.Fprintf(&sb, `<fill><patternFill patternType="solid"><fgColor rgb="FF%s"/></patternFill></fill>`, escapeAttr(rgb))
	}
	sb.WriteString(`</fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>`)
	sb.WriteString(`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>`)
	fmt.Fprintf(&sb, `<cellXfs count="%d">`, 4+3*len(x.fills))
	sb.WriteString(`<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`)
	sb.WriteString(`<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>`)
	sb.WriteString(`<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`)
	sb.WriteString(`<xf numFmtId="14" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`)
	for k := range x.fills {
		fill := 2 + k
		fmt.Fprintf(&sb, `<xf numFmtId="0" fontId="0" fillId="%d" borderId="0" xfId="0" applyFill="1"/>`, fill)
		fmt.Fprintf(&sb, `<xf numFmtId="164" fontId="0" fillId="%d" borderId="0" xfId="0" applyFill="1" applyNumberFormat="1"/>`, fill)
		fmt.Fprintf(&sb, `<xf numFmtId="14" fontId="0" fillId="%d" borderId="0" xfId="0" applyFill="1" applyNumberFormat="1"/>`, fill)
	}
	sb.WriteString(`</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`)
	return sb.String()
}

const contentTypesXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
	`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
	`<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>` +
	`</Types>`

const rootRelsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>` +
	`</Relationships>`

const workbookRelsXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
	`</Relationships>`

const workbookXML = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
	`<sheets><sheet name="%s" sheetId="1" r:id="rId1"/></sheets></workbook>`

// sheetStart freezes the header row.
const sheetStart = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">` +
	`<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>` +
	`<sheetData>`

const sheetEnd = `</sheetData></worksheet>`
