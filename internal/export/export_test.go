package export

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
)

// A CSV text cell that a spreadsheet would run as a formula (it starts with
// =, +, -, @, a tab or a carriage return) is written with a leading
// apostrophe; numbers, dates and other text are written as they are, and
// Undefuse gives the text back.
func TestCSVInjection(t *testing.T) {
	var buf bytes.Buffer
	w, err := New(CSV, &buf, "")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"=SUM(A1)", "+420 777", "-2+3", "@cmd", "\tx", "\rx", "Novák", "a=b", ""}
	cells := []Cell{Int(-5), Number(decimal.RequireFromString("-12.5")), Date(civil.NewDate(2026, 3, 1))}
	for _, s := range texts {
		cells = append(cells, Text(s))
	}
	if err := w.Header(make([]string, len(cells))); err != nil {
		t.Fatal(err)
	}
	if err := w.Row(cells); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(buf.Bytes(), []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-5", "-12.50", "2026-03-01", "'=SUM(A1)", "'+420 777", "'-2+3", "'@cmd", "'\tx", "'\rx", "Novák", "a=b", ""}
	got := recs[1]
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cell %d = %q, want %q", i, got[i], want[i])
		}
	}
	for i, s := range texts {
		if back := Undefuse(got[3+i]); back != s {
			t.Errorf("Undefuse(%q) = %q, want %q", got[3+i], back, s)
		}
	}
}

// Defuse works on every piece of a text cell that a reader splitting on a
// separator (`,` `;` a tab or a line break) could show as a cell of its own:
// each piece that starts, after spaces, with =, +, -, @, a tab or a carriage
// return gets an apostrophe in front, and Undefuse gives the text back.
func TestDefuse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ok;=1+2", "ok;'=1+2"},
		{"a,@b", "a,'@b"},
		{"x; -1", "x;' -1"},
		{"=1", "'=1"},
		{" =1", "' =1"},
		{"\tx", "'\tx"},
		{"\rx", "'\rx"},
		{"a\tb", "a\tb"},
		{"a\t=b", "a\t'=b"},
		{"a\n=b", "a\n'=b"},
		{"a\r\n+b", "a\r\n'+b"},
		{"a,\r=b", "a,'\r'=b"},
		{"a;;-b", "a;;'-b"},
		{"=a;+b,@c", "'=a;'+b,'@c"},
		{"'=x", "''=x"}, // an apostrophe the text had before a trigger is kept
		{"x;'@y", "x;''@y"},
		{"'abc", "'abc"},
		{"Novák", "Novák"},
		{"a=b", "a=b"},
		{"Hlavní 1, 110 00 Praha", "Hlavní 1, 110 00 Praha"},
		{"Praha, -", "Praha,' -"},
		{"", ""},
		{";", ";"},
		{"a;", "a;"},
		{"-", "'-"},
	} {
		if got := Defuse(tc.in); got != tc.want {
			t.Errorf("Defuse(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if back := Undefuse(Defuse(tc.in)); back != tc.in {
			t.Errorf("Undefuse(Defuse(%q)) = %q", tc.in, back)
		}
		// No reader's cell starts with a trigger, spaces or not.
		for _, piece := range strings.FieldsFunc(Defuse(tc.in), func(r rune) bool { return strings.ContainsRune(",;\t\r\n", r) }) {
			if p := strings.TrimLeft(piece, " "); p != "" && strings.ContainsRune("=+-@", rune(p[0])) {
				t.Errorf("Defuse(%q) = %q: the piece %q starts with a trigger", tc.in, Defuse(tc.in), piece)
			}
		}
	}
}

// A text cell holding a semicolon or a comma is quoted, so a spreadsheet
// reading the file with either separator keeps it one cell; parsed with
// both separators, and split naively, no cell starts with a trigger.
func TestCSVQuotesSeparators(t *testing.T) {
	var buf bytes.Buffer
	w, err := New(CSV, &buf, "")
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"plain", "ok;=1+2", "a,@b", "x; -1", "a\tb", `say "hi"`}
	var cells []Cell
	for _, s := range texts {
		cells = append(cells, Text(s))
	}
	cells = append(cells, Number(decimal.RequireFromString("-100")))
	if err := w.Header([]string{"a", "b", "c", "d", "e", "f", "amount"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Row(cells); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	body := string(bytes.TrimPrefix(buf.Bytes(), []byte("\ufeff")))
	want := "a,b,c,d,e,f,amount\nplain,\"ok;'=1+2\",\"a,'@b\",\"x;' -1\",\"a\tb\",\"say \"\"hi\"\"\",-100.00\n"
	if body != want {
		t.Errorf("csv\n%q\nwant\n%q", body, want)
	}
	line := strings.Split(body, "\n")[1]
	line = strings.TrimSuffix(line, ",-100.00") // the amount stays a number
	// A reader with either separator, honouring quotes or not, and a naive
	// split of the line.
	var cellsSeen []string
	for _, sep := range []rune{',', ';'} {
		for _, lazy := range []bool{false, true} {
			r := csv.NewReader(strings.NewReader(line))
			r.Comma, r.FieldsPerRecord, r.LazyQuotes = sep, -1, lazy
			rec, err := r.Read()
			if err != nil {
				if sep == ',' || lazy {
					t.Fatalf("read with %q (lazy %v): %v", sep, lazy, err)
				}
				continue // a strict ';' reader refuses the comma file
			}
			cellsSeen = append(cellsSeen, rec...)
		}
	}
	cellsSeen = append(cellsSeen, strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' })...)
	for _, c := range cellsSeen {
		if c = strings.TrimLeft(c, ` "`); c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			t.Errorf("a reader sees the cell %q in %q", c, line)
		}
	}
}
