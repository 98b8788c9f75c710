package imports

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/konvoj/konvoj/internal/apperr"
)

// A spreadsheet is read here rather than by a spreadsheet library, which
// holds a whole part (or a temporary file of it) and each cell's text
// however long: a 150 KiB file whose one cell unpacks to 150 MiB cost
// about 1 GB of memory and 150 MiB of temporary files per request. This
// reader opens only the parts it needs (the workbook, its relationships,
// the shared strings and the first sheet), streams them through an XML
// decoder that never sees a token longer than maxToken (xmlGuard), and
// keeps no more than the limits of Table.hold.

// maxToken is the longest run of XML text or markup a part may hold: a cell
// of MaxCellChars characters written with the longest character references
// (&#x10FFFF;) is 50,000 bytes.
const maxToken = 64 << 10

// maxSmallPart bounds the parts that only name other parts (the workbook and
// the relationships).
const maxSmallPart = 1 << 20

// The relationship types ending these suffixes (transitional and strict
// OOXML alike).
const (
	relOfficeDocument = "/officeDocument"
	relWorksheet      = "/worksheet"
	relSharedStrings  = "/sharedStrings"
)

// readXLSX reads the first sheet of a spreadsheet row by row with the raw
// cell values, as stored: a date cell gives its day number, a formula its
// stored result, never evaluated.
func readXLSX(data []byte) (Table, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Table{}, unsupported()
	}
	x := &xlsx{parts: map[string]*zip.File{}, table: Table{Format: "xlsx"}}
	// The declared sizes, before anything is unpacked; what really comes
	// out is counted as it is read (declared sizes can lie).
	var declared uint64
	for _, zf := range zr.File {
		if declared += zf.UncompressedSize64; declared > maxUnpacked || zf.UncompressedSize64 > maxUnpacked {
			return Table{}, tooLargeUnpacked()
		}
		x.parts[strings.TrimPrefix(zf.Name, "/")] = zf
	}
	sheet, shared, err := x.firstSheet()
	if err != nil {
		return Table{}, err
	}
	if sheet == "" {
		return Table{}, apperr.Invalid("file", "msg.imports.empty")
	}
	if shared != "" {
		if err := x.readSharedStrings(shared); err != nil {
			return Table{}, err
		}
	}
	if err := x.readSheet(sheet); err != nil {
		return Table{}, err
	}
	return x.table, nil
}

func tooLargeUnpacked() error {
	return apperr.PayloadTooLarge("msg.imports.unpacked", "max", maxUnpacked>>20)
}

// xlsx is a spreadsheet being read.
type xlsx struct {
	parts    map[string]*zip.File
	unpacked int64 // bytes unpacked so far
	shared   []string
	table    Table
}

// open returns a decoder of a part, reading at most limit bytes of it and
// maxUnpacked of all parts together; nil when there is no such part.
func (x *xlsx) open(name string, limit int64) (*xml.Decoder, func(), error) {
	zf := x.parts[name]
	if zf == nil {
		return nil, nil, nil
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, nil, unsupported()
	}
	r := &countingReader{r: rc, x: x, left: limit}
	g := &xmlGuard{r: bufio.NewReaderSize(r, 32<<10)}
	d := xml.NewDecoder(g)
	return d, func() { rc.Close() }, nil
}

// countingReader counts what a part unpacks to.
type countingReader struct {
	r    io.Reader
	x    *xlsx
	left int64 // of this part
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.x.unpacked += int64(n)
	c.left -= int64(n)
	if c.x.unpacked > maxUnpacked {
		return n, tooLargeUnpacked()
	}
	if c.left < 0 {
		return n, unsupported()
	}
	return n, err
}

// token is the decoder's next token; a refusal of the guard or of the
// counting reader is returned as it is, any other error as a file that
// cannot be read.
func token(d *xml.Decoder) (xml.Token, error) {
	t, err := d.RawToken()
	if err == nil || errors.Is(err, io.EOF) {
		return t, err
	}
	if apperr.KindOf(err) != apperr.KindInternal {
		return nil, err
	}
	return nil, apperr.Invalid("file", "msg.imports.xlsx")
}

// relationships reads a part's relationships: id → type and target
// (resolved against dir).
func (x *xlsx) relationships(name, dir string) (map[string][2]string, error) {
	d, closeFn, err := x.open(name, maxSmallPart)
	if err != nil || d == nil {
		return nil, err
	}
	defer closeFn()
	rels := map[string][2]string{}
	for {
		t, err := token(d)
		if errors.Is(err, io.EOF) {
			return rels, nil
		}
		if err != nil {
			return nil, err
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "Relationship" {
			target := attr(se, "Target")
			if strings.HasPrefix(target, "/") {
				target = strings.TrimPrefix(target, "/")
			} else {
				target = path.Join(dir, target)
			}
			rels[attr(se, "Id")] = [2]string{attr(se, "Type"), target}
		}
	}
}

// firstSheet finds the workbook (the package's office document), then the
// part of its first sheet and of its shared strings ("" when none).
func (x *xlsx) firstSheet() (sheet, shared string, err error) {
	workbook := "xl/workbook.xml"
	rels, err := x.relationships("_rels/.rels", "")
	if err != nil {
		return "", "", err
	}
	for _, r := range rels {
		if strings.HasSuffix(r[0], relOfficeDocument) {
			workbook = r[1]
		}
	}
	if x.parts[workbook] == nil {
		return "", "", unsupported()
	}
	dir := path.Dir(workbook)
	if rels, err = x.relationships(path.Join(dir, "_rels", path.Base(workbook)+".rels"), dir); err != nil {
		return "", "", err
	}
	for _, r := range rels {
		if strings.HasSuffix(r[0], relSharedStrings) {
			shared = r[1]
		}
	}
	d, closeFn, err := x.open(workbook, maxSmallPart)
	if err != nil {
		return "", "", err
	}
	defer closeFn()
	for {
		t, err := token(d)
		if errors.Is(err, io.EOF) {
			return "", shared, nil
		}
		if err != nil {
			return "", "", err
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "sheet" {
			for _, a := range se.Attr {
				if a.Name.Local == "id" && strings.HasSuffix(rels[a.Value][0], relWorksheet) {
					return rels[a.Value][1], shared, nil
				}
			}
			return "", "", unsupported()
		}
	}
}

// readSharedStrings reads the table of shared strings; each counts
// against the limits of the table's text, and one longer than
// MaxCellChars is refused.
func (x *xlsx) readSharedStrings(name string) error {
	d, closeFn, err := x.open(name, maxUnpacked)
	if err != nil || d == nil {
		return err
	}
	defer closeFn()
	for {
		t, err := token(d)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if se, ok := t.(xml.StartElement); ok && se.Name.Local == "si" {
			s, err := readText(d, se)
			if err != nil {
				return err
			}
			if err := x.table.hold(1, len(s)); err != nil {
				return err
			}
			x.shared = append(x.shared, s)
		}
	}
}

// readText reads the text of a string item (shared or inline) up to its
// end: its own text and that of its rich text runs, without the phonetic
// runs; refused beyond MaxCellChars.
func readText(d *xml.Decoder, start xml.StartElement) (string, error) {
	var b strings.Builder
	depth, inText, phonetic := 0, false, 0
	for {
		t, err := token(d)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = apperr.Invalid("file", "msg.imports.xlsx")
			}
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			depth++
			switch t.Name.Local {
			case "t":
				inText = true
			case "rPh":
				phonetic++
			}
		case xml.EndElement:
			if depth == 0 {
				return unescapeBSTR(b.String()), nil
			}
			depth--
			switch t.Name.Local {
			case "t":
				inText = false
			case "rPh":
				phonetic--
			}
		case xml.CharData:
			if inText && phonetic == 0 {
				b.Write(t)
				if err := cellLength(b.Len(), b.String()); err != nil {
					return "", err
				}
			}
		}
	}
}

// cellLength refuses a cell's text of more than MaxCellChars characters
// (n is its length in bytes, checked first: most cells are short).
func cellLength(n int, s string) error {
	if n > MaxCellChars && utf8.RuneCountInString(s) > MaxCellChars {
		return tooLongCell()
	}
	return nil
}

func tooLongCell() error {
	return apperr.Invalid("file", "msg.imports.cell_too_long", "max", MaxCellChars)
}

// readSheet reads the rows of a sheet: each row's number and its cells,
// placed by their reference (C5) or after the one before.
func (x *xlsx) readSheet(name string) error {
	d, closeFn, err := x.open(name, maxUnpacked)
	if err != nil {
		return err
	}
	if d == nil {
		return unsupported()
	}
	defer closeFn()
	line := 0
	for {
		t, err := token(d)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		se, ok := t.(xml.StartElement)
		if !ok || se.Name.Local != "row" {
			continue
		}
		if n, err := strconv.Atoi(attr(se, "r")); err == nil && n > line {
			line = n
		} else {
			line++
		}
		rec, err := x.readRow(d)
		if err != nil {
			return err
		}
		for i, c := range rec {
			rec[i] = strings.TrimSpace(c)
		}
		if err := x.table.add(line, rec); err != nil {
			return err
		}
	}
}

// readRow reads a row's cells up to its end. A blank cell takes no room
// after the last cell with a value.
func (x *xlsx) readRow(d *xml.Decoder) ([]string, error) {
	var rec []string
	col := 0
	for {
		t, err := token(d)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = apperr.Invalid("file", "msg.imports.xlsx")
			}
			return nil, err
		}
		switch t := t.(type) {
		case xml.EndElement:
			if t.Name.Local == "row" {
				return rec, nil
			}
		case xml.StartElement:
			if t.Name.Local != "c" {
				continue
			}
			if c, ok := column(attr(t, "r")); ok {
				col = c
			} else {
				col++
			}
			v, err := x.readCell(d, t)
			if err != nil {
				return nil, err
			}
			if v == "" {
				continue
			}
			// Counted before the row grows: a cell far to the right
			// costs its blank cells.
			if col > len(rec) {
				if err := x.table.hold(col-len(rec), 0); err != nil {
					return nil, err
				}
				rec = append(rec, make([]string, col-len(rec))...)
			}
			rec[col-1] = v
			if err := x.table.hold(0, len(v)); err != nil {
				return nil, err
			}
		}
	}
}

// readCell reads a cell's raw value: a shared string (t="s") by its index,
// an inline string (t="inlineStr") from its text, anything else (a number,
// a date's day number, a formula's stored result, a boolean's 0 or 1) as
// stored in its value.
func (x *xlsx) readCell(d *xml.Decoder, start xml.StartElement) (string, error) {
	typ := attr(start, "t")
	var v, inline string
	hasInline := false
	for {
		t, err := token(d)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = apperr.Invalid("file", "msg.imports.xlsx")
			}
			return "", err
		}
		switch t := t.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "v":
				if v, err = readValue(d); err != nil {
					return "", err
				}
			case "is":
				if inline, err = readText(d, t); err != nil {
					return "", err
				}
				hasInline = true
			default:
				if err := skip(d); err != nil {
					return "", err
				}
			}
		case xml.EndElement:
			switch {
			case typ == "s" && v != "":
				i, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil || i < 0 || i >= len(x.shared) {
					return "", apperr.Invalid("file", "msg.imports.xlsx")
				}
				return x.shared[i], nil
			case typ == "inlineStr" && hasInline:
				return inline, nil
			}
			return v, nil
		}
	}
}

// readValue reads the text of a <v> element up to its end.
func readValue(d *xml.Decoder) (string, error) {
	var b strings.Builder
	for {
		t, err := token(d)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = apperr.Invalid("file", "msg.imports.xlsx")
			}
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			b.Write(t)
			if err := cellLength(b.Len(), b.String()); err != nil {
				return "", err
			}
		case xml.EndElement:
			return b.String(), nil
		case xml.StartElement:
			if err := skip(d); err != nil {
				return "", err
			}
		}
	}
}

// skip reads up to the end of the element just started.
func skip(d *xml.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := token(d)
		if errors.Is(err, io.EOF) {
			return apperr.Invalid("file", "msg.imports.xlsx")
		}
		if err != nil {
			return err
		}
		switch t.(type) {
		case xml.StartElement:
			depth++
		case xml.EndElement:
			depth--
		}
	}
	return nil
}

// column is the column number (A = 1) of a cell reference such as "C5".
func column(ref string) (int, bool) {
	col := 0
	for i := 0; i < len(ref); i++ {
		c := ref[i]
		switch {
		case c >= 'A' && c <= 'Z':
			col = col*26 + int(c-'A') + 1
		case c >= 'a' && c <= 'z':
			col = col*26 + int(c-'a') + 1
		default:
			return col, col > 0 && i > 0
		}
		if col > maxColumn {
			return 0, false
		}
	}
	return 0, false
}

// maxColumn is a spreadsheet's last column (XFD).
const maxColumn = 16384

func attr(se xml.StartElement, name string) string {
	for _, a := range se.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// unescapeBSTR turns the escapes with which spreadsheets store characters
// XML cannot hold (_x000D_ for a carriage return, _x005F_ for an
// underscore) back into the characters.
func unescapeBSTR(s string) string {
	if !strings.Contains(s, "_x") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "_x")
		if i < 0 || len(s) < i+7 {
			break
		}
		code, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
		if err != nil || s[i+6] != '_' {
			b.WriteString(s[:i+2])
			s = s[i+2:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteRune(rune(code))
		s = s[i+7:]
	}
	b.WriteString(s)
	return b.String()
}

// xmlGuard passes a part's bytes to the XML decoder and refuses any token
// longer than maxToken before the decoder has read it: text between tags
// (a cell's text), a tag with its attributes, a comment, a CDATA section or
// a processing instruction. A document type declaration (which could
// declare entities) is refused outright; spreadsheets never hold one. The
// decoder then holds at most maxToken bytes of any token, however large
// the part.
type xmlGuard struct {
	r      *bufio.Reader
	state  guardState
	n      int     // bytes of the current token
	quote  byte    // the open quote inside a tag
	p1, p2 byte    // the two bytes before, to see where a comment, CDATA or PI ends
	bang   [7]byte // what follows "<!" until it is known
	nbang  int
	err    error
}

type guardState int

const (
	inText    guardState = iota
	inOpen               // after '<'
	inBang               // after "<!"
	inTag                // a start or end tag
	inComment            // <!-- … -->
	inCDATA              // <![CDATA[ … ]]>
	inPI                 // <? … ?>
)

// ReadByte is what the decoder reads through (an io.ByteReader: it then
// buffers nothing of its own).
func (g *xmlGuard) ReadByte() (byte, error) {
	if g.err != nil {
		return 0, g.err
	}
	b, err := g.r.ReadByte()
	if err != nil {
		return 0, err
	}
	if g.err = g.see(b); g.err != nil {
		return 0, g.err
	}
	return b, nil
}

func (g *xmlGuard) Read(p []byte) (int, error) {
	for i := range p {
		b, err := g.ReadByte()
		if err != nil {
			if i > 0 && errors.Is(err, io.EOF) {
				return i, nil
			}
			return i, err
		}
		p[i] = b
	}
	return len(p), nil
}

// see moves the guard over one byte.
func (g *xmlGuard) see(b byte) error {
	g.n++
	if g.n > maxToken {
		if g.state == inText || g.state == inCDATA {
			return tooLongCell()
		}
		return unsupported()
	}
	p1, p2 := g.p1, g.p2
	g.p1, g.p2 = b, p1
	switch g.state {
	case inText:
		if b == '<' {
			g.state, g.n = inOpen, 1
		}
	case inOpen:
		switch b {
		case '!':
			g.state, g.nbang = inBang, 0
		case '?':
			g.state = inPI
		default:
			g.state, g.quote = inTag, 0
		}
	case inBang:
		g.bang[g.nbang] = b
		g.nbang++
		switch got := string(g.bang[:g.nbang]); {
		case got == "--":
			g.state, g.p1, g.p2 = inComment, 0, 0
		case got == "[CDATA[":
			g.state, g.p1, g.p2 = inCDATA, 0, 0
		case !strings.HasPrefix("--", got) && !strings.HasPrefix("[CDATA[", got):
			return unsupported()
		}
	case inTag:
		switch {
		case g.quote != 0:
			if b == g.quote {
				g.quote = 0
			}
		case b == '"' || b == '\'':
			g.quote = b
		case b == '>':
			g.state, g.n = inText, 0
		}
	case inComment:
		if b == '>' && p1 == '-' && p2 == '-' {
			g.state, g.n = inText, 0
		}
	case inCDATA:
		if b == '>' && p1 == ']' && p2 == ']' {
			g.state, g.n = inText, 0
		}
	case inPI:
		if b == '>' && p1 == '?' {
			g.state, g.n = inText, 0
		}
	}
	return nil
}
