package money_test

import (
	"context"
	"testing"

	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// An amount scanned from a numeric column (pgx's binary numeric, through
// ScanNumeric) is the amount scanned from the same value as text (through
// Scan): negative, zero, large and small values, more places than two
// (an average: rounded half away from zero), trailing zeros, and NULL into
// a *Amount. NaN and NULL into an Amount are errors.
func TestScanNumericMatchesText(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	for _, lit := range []string{"0", "0.00", "12.3", "-12.30", "99999999.99", "-99999999.99", "0.01", "-0.005", "0.005",
		"1234.5678", "1e3", "100000000000000000000.25", "-7.125", "3.14159265358979323846"} {
		var bin, txt money.Amount
		if err := db.QueryRow(ctx, `SELECT $1::numeric, $1::numeric::text`, lit).Scan(&bin, &txt); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if !bin.Equal(txt) || bin.String() != txt.String() {
			t.Errorf("%s: binary %s, text %s", lit, bin, txt)
		}
	}
	var a money.Amount
	if err := db.QueryRow(ctx, `SELECT 'NaN'::numeric`).Scan(&a); err == nil {
		t.Error("NaN scanned without an error")
	}
	if err := db.QueryRow(ctx, `SELECT NULL::numeric`).Scan(&a); err == nil {
		t.Error("NULL scanned into an Amount without an error")
	}
	p := &a
	if err := db.QueryRow(ctx, `SELECT NULL::numeric`).Scan(&p); err != nil || p != nil {
		t.Errorf("NULL into a *Amount: %v, %v", p, err)
	}
	if err := db.QueryRow(ctx, `SELECT 5.5::numeric`).Scan(&p); err != nil || p == nil || p.String() != "5.50" {
		t.Errorf("5.5 into a *Amount: %v, %v", p, err)
	}
}
