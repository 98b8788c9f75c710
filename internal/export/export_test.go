package export

import (
	"bytes"
	"encoding/csv"
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
