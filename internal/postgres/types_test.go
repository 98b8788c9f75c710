package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// uuid.UUID and civil.Date parameters encode in PostgreSQL's binary format
// directly (no failed attempt first), and every form of them comes back as
// it went in: values, NULLs through pointers, arrays.
func TestUUIDAndDateTypes(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	id := uuid.New()
	day := civil.NewDate(2026, 2, 28)
	m := conn.Conn().TypeMap()
	// The binary encoding pgx tries first used to fail for both: it built
	// an error, dropped it, and encoded the value again through its text.
	// Now it is the value's bytes: no allocation but the boxing of the value.
	buf := make([]byte, 0, 64)
	for _, v := range []any{id, day} {
		oid := uint32(pgtype.UUIDOID)
		if _, ok := v.(civil.Date); ok {
			oid = pgtype.DateOID
		}
		if allocs := testing.AllocsPerRun(20, func() {
			if _, err := m.Encode(oid, pgtype.BinaryFormatCode, v, buf[:0]); err != nil {
				t.Fatalf("%T in binary: %v", v, err)
			}
		}); allocs > 0 {
			t.Errorf("%T in binary: %.0f allocations, want none", v, allocs)
		}
	}

	var (
		gotID, zeroID    uuid.UUID
		nullID           *uuid.UUID
		ids              []uuid.UUID
		gotDay, zeroDay  civil.Date
		nullDay, ptrDay  *civil.Date
		text, nullAsText string
		daysText         string
		other            = uuid.New()
		nilID            *uuid.UUID
		nilDay           *civil.Date
	)
	err = conn.QueryRow(ctx, `
		SELECT $1::uuid, NULL::uuid, NULL::uuid, $2::uuid[], $3::date, NULL::date, NULL::date, $3::date,
			$1::uuid::text || ' ' || $3::date::text, concat($4::uuid, $5::date, $6::date), array[$3::date, $6::date]::text`,
		id, []uuid.UUID{id, other}, day, nilID, nilDay, civil.Date{},
	).Scan(&gotID, &zeroID, &nullID, &ids, &gotDay, &zeroDay, &nullDay, &ptrDay, &text, &nullAsText, &daysText)
	if err != nil {
		t.Fatal(err)
	}
	if gotID != id || zeroID != uuid.Nil || nullID != nil || len(ids) != 2 || ids[0] != id || ids[1] != other {
		t.Errorf("uuids: %v %v %v %v", gotID, zeroID, nullID, ids)
	}
	if gotDay != day || !zeroDay.IsZero() || nullDay != nil || ptrDay == nil || *ptrDay != day {
		t.Errorf("dates: %v %v %v %v", gotDay, zeroDay, nullDay, ptrDay)
	}
	// The values PostgreSQL received, and a zero Date and nil pointers as NULL.
	if text != id.String()+" 2026-02-28" || nullAsText != "" || daysText != "{2026-02-28,NULL}" {
		t.Errorf("as PostgreSQL saw them: %q, %q, %q", text, nullAsText, daysText)
	}
}
