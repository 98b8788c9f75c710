package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestInlineWritesTypedLiterals checks that a captured statement replayed
// with its arguments written as literals is the same query: each literal is
// cast to the type PostgreSQL gave the parameter, and the literal query
// returns what the parameterised one returns.
func TestInlineWritesTypedLiterals(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	id := uuid.MustParse("6f1d3c2e-8a4b-4c1d-9e2f-0a1b2c3d4e5f")
	var nilText *string
	// The types come from the statement, not from casts in it: uuid from
	// companies.id, text[] from ANY over a text column, date and numeric
	// from the columns they are compared with.
	sql := `SELECT $1 = c.id, $2 || '', c.name = ANY($3), $4::date - date '2026-01-01', $5 + 0.5::numeric,
		$6 + 1, coalesce($7, c.name), $8 AND true, c.id = ANY($9), $10 < now(), $11 || 'x'
		FROM (SELECT $1::uuid AS id, 'A'::text AS name) c`
	args := []any{
		id,
		"O'Brien; --",
		[]string{"a b", `c,"d"`, "it's", ""},
		civil.NewDate(2026, time.October, 31),
		decimal.RequireFromString("12.50"),
		int64(41),
		nilText,
		true,
		[]uuid.UUID{id, uuid.Nil},
		time.Date(2026, 1, 2, 3, 4, 5, 600000000, time.UTC),
		"",
	}
	got, err := newLiteralizer().inline(ctx, db, sql, args)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"'6f1d3c2e-8a4b-4c1d-9e2f-0a1b2c3d4e5f'::uuid = c.id",
		"'O''Brien; --'::text",
		`'{"a b","c,\"d\"",it''s,""}'::text[]`,
		"'2026-10-31'::date",
		"'12.5'::numeric",
		"'41'::integer",
		"NULL::text",
		"'t'::boolean",
		"'{6f1d3c2e-8a4b-4c1d-9e2f-0a1b2c3d4e5f,00000000-0000-0000-0000-000000000000}'::uuid[]",
		"::timestamp with time zone < now()",
		"''::text || 'x'",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("literal SQL lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "$") {
		t.Errorf("a placeholder is left:\n%s", got)
	}
	var viaParams, viaLiterals []any
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		viaParams, _ = rows.Values()
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	rows, err = db.Query(ctx, got)
	if err != nil {
		t.Fatalf("the literal SQL does not run: %v\n%s", err, got)
	}
	for rows.Next() {
		viaLiterals, _ = rows.Values()
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(viaParams) != 11 || len(viaLiterals) != 11 {
		t.Fatalf("rows: %v / %v", viaParams, viaLiterals)
	}
	for i := range viaParams {
		if a, b := stringOf(viaParams[i]), stringOf(viaLiterals[i]); a != b {
			t.Errorf("column %d: with parameters %s, with literals %s", i+1, a, b)
		}
	}
}

func stringOf(v any) string {
	if v == nil {
		return "NULL"
	}
	return fmt.Sprint(v)
}

// TestPreparedReplaysTheSameQuery: a statement the server ran on reused
// plans is replayed as PREPARE with its parameters' types and EXECUTE with
// its arguments as literals, and that returns what the parameterised
// statement returns.
func TestPreparedReplaysTheSameQuery(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	sql := `SELECT $1 = c.id, c.name = ANY($2), $3::date - date '2026-01-01', coalesce($4, c.name)
		FROM (SELECT $1::uuid AS id, 'A'::text AS name) c`
	var nilText *string
	args := []any{uuid.New(), []string{"A", "it's"}, civil.NewDate(2026, time.October, 31), nilText}
	name, prepare, execute, err := newLiteralizer().prepared(ctx, db, sql, args)
	if err != nil {
		t.Fatal(err)
	}
	if want := "PREPARE " + name + "(uuid, text[], date, text) AS SELECT"; !strings.HasPrefix(prepare, want) {
		t.Errorf("prepare %q, want it to start with %q", prepare, want)
	}
	if !strings.HasPrefix(execute, "EXECUTE "+name+"('") || !strings.Contains(execute, "'{A,it''s}'::text[]") {
		t.Errorf("execute %q", execute)
	}
	if again, _, _, _ := newLiteralizer().prepared(ctx, db, sql, args); again != name {
		t.Errorf("the same statement is named %s, then %s", name, again)
	}
	conn, err := db.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, prepare); err != nil {
		t.Fatalf("%v\n%s", err, prepare)
	}
	var a, b []any
	rows, err := conn.Query(ctx, execute)
	if err != nil {
		t.Fatalf("%v\n%s", err, execute)
	}
	for rows.Next() {
		a, _ = rows.Values()
	}
	rows, err = conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		b, _ = rows.Values()
	}
	if len(a) != 4 || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("EXECUTE gave %v, the statement with parameters %v", a, b)
	}
}
