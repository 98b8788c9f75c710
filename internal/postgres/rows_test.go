package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// wideRow is a struct as wide as the stores' records.
type wideRow struct {
	N    int
	Name string
	Pad  [64]int64
}

func scanWide(row pgx.Row, r *wideRow) error { return row.Scan(&r.N, &r.Name) }

// AppendRows appends every row in order after what s held, scanned in
// place: no allocation per row, where pgx.CollectRows allocates each row's
// struct once more; no rows give an empty slice, not nil (an empty JSON
// array); an error in a row, or one PostgreSQL reports after some rows,
// gives the error and no rows.
func TestAppendRows(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	const rows = 200
	query := `SELECT n, 'row ' || n FROM generate_series(1, $1) n`

	s, err := postgres.AppendRows([]wideRow{{N: -1}}, must(pool.Query(ctx, query, 3)), scanWide)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 4 || s[0].N != -1 || s[1].N != 1 || s[3].N != 3 || s[3].Name != "row 3" {
		t.Fatalf("appended %+v", s)
	}

	// The same page, preallocated, both ways; the rows are read before the
	// count starts, so only the collecting differs.
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var inPlace, byValue float64
	inPlace = testing.AllocsPerRun(20, func() {
		got, err := postgres.AppendRows(make([]wideRow, 0, rows), must(conn.Query(ctx, query, rows)), scanWide)
		if err != nil || len(got) != rows {
			t.Fatalf("%d rows, %v", len(got), err)
		}
	})
	byValue = testing.AllocsPerRun(20, func() {
		got, err := pgx.AppendRows(make([]wideRow, 0, rows), must(conn.Query(ctx, query, rows)), func(r pgx.CollectableRow) (wideRow, error) {
			var w wideRow
			return w, scanWide(r, &w)
		})
		if err != nil || len(got) != rows {
			t.Fatalf("%d rows, %v", len(got), err)
		}
	})
	if byValue-inPlace < rows {
		t.Errorf("allocations for %d rows: %.0f in place, %.0f by value; want at least one a row fewer in place", rows, inPlace, byValue)
	}

	if none, err := postgres.AppendRows(nil, must(pool.Query(ctx, query, 0)), scanWide); err != nil || none == nil || len(none) != 0 {
		t.Errorf("no rows: %#v, %v; want an empty slice, not nil", none, err)
	}

	failing := func(row pgx.Row, r *wideRow) error {
		if err := scanWide(row, r); err != nil || r.N < 2 {
			return err
		}
		return errBadRow
	}
	if got, err := postgres.AppendRows(nil, must(pool.Query(ctx, query, 3)), failing); err != errBadRow || got != nil {
		t.Errorf("a failing scan: %v, %v", got, err)
	}
	// Division by zero on the third row: PostgreSQL reports it after two.
	got, err := postgres.AppendRows(nil, must(pool.Query(ctx, `SELECT n, (1 / (3 - n))::text FROM generate_series(1, 4) n`)), scanWide)
	if err == nil || !strings.Contains(err.Error(), "division by zero") || got != nil {
		t.Errorf("a statement failing after two rows: %v, %v", got, err)
	}
}

type rowError string

func (e rowError) Error() string { return string(e) }

const errBadRow = rowError("bad row")

func must(rows pgx.Rows, err error) pgx.Rows {
	if err != nil {
		panic(err)
	}
	return rows
}
