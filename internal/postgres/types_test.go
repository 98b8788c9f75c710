package postgres_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
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

// jsonShape has the kinds of fields the project scans from JSON columns:
// numbers kept as written, optional ones, raw JSON, times, nested maps.
type jsonShape struct {
	Score    json.Number            `json:"score"`
	Raw      *json.Number           `json:"raw_value"`
	Details  string                 `json:"details"`
	On       bool                   `json:"applicable"`
	Meta     json.RawMessage        `json:"meta"`
	At       time.Time              `json:"at"`
	Day      *civil.Date            `json:"day"`
	Tags     []string               `json:"tags"`
	Nested   map[string]jsonShape   `json:"nested"`
	Anything map[string]any         `json:"anything"`
	Skipped  string                 `json:"-"`
	Extra    map[string]json.Number `json:"extra,omitempty"`
}

// TestJSONColumnsDecodeAsStandard: json and jsonb values scan into the
// same Go values as encoding/json decodes them to (the connections decode
// them with goccy/go-json, registerJSON): structs with json.Number and raw
// JSON, maps, interfaces, escapes, non-ASCII text, nulls, arrays of them.
func TestJSONColumnsDecodeAsStandard(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, oid := range []uint32{pgtype.JSONOID, pgtype.JSONBOID} {
		var unmarshal func([]byte, any) error
		typ, _ := conn.Conn().TypeMap().TypeForOID(oid)
		switch c := typ.Codec.(type) {
		case *pgtype.JSONCodec:
			unmarshal = c.Unmarshal
		case *pgtype.JSONBCodec:
			unmarshal = c.Unmarshal
		}
		if unmarshal == nil || reflect.ValueOf(unmarshal).Pointer() != reflect.ValueOf(gojson.Unmarshal).Pointer() {
			t.Errorf("type %d is not decoded by goccy/go-json", oid)
		}
	}
	conn.Release()
	docs := []string{
		`{"score": 100.00, "raw_value": null, "details": "0 of 5 required documents expire within 30 days", "applicable": true,
		  "meta": {"b": [1, 2.50, "x"], "a": null}, "at": "2026-11-25T04:30:00.123456Z", "day": "2026-02-28", "tags": ["a", "b"],
		  "nested": {"activity": {"score": 0, "raw_value": 12.5, "details": "Not applicable", "applicable": false}},
		  "anything": {"n": 1e3, "f": -0.5, "s": "Nov\u00e1k \u003cdriver\u003e & co. \ud83d\ude9a", "l": [true, null, {}]},
		  "unknown": 1, "Details": "case-insensitive match is not first", "extra": {"x": 1.10}}`,
		`{"score": "not a number here is refused by both"}`,
		`{}`,
		`{"tags": null, "nested": null, "meta": null, "day": null}`,
	}
	for i, doc := range docs {
		for _, typ := range []string{"json", "jsonb"} {
			var want, got jsonShape
			wantErr := json.Unmarshal([]byte(doc), &want) != nil
			var text string
			err := pool.QueryRow(ctx, `SELECT $1::`+typ+`, $1::`+typ+`::text`, doc).Scan(&got, &text)
			if wantErr != (err != nil) {
				t.Errorf("doc %d as %s: error %v, encoding/json's error %v", i, typ, err, wantErr)
				continue
			}
			if wantErr {
				continue
			}
			// Compare with encoding/json's decoding of what PostgreSQL sent
			// (jsonb normalises the text).
			want = jsonShape{}
			if err := json.Unmarshal([]byte(text), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("doc %d as %s:\n got %+v\nwant %+v", i, typ, got, want)
			}
		}
	}
	var anys []any
	var want []any
	if err := pool.QueryRow(ctx, `SELECT array['{"a": 1.50}'::jsonb, '[1, "x", null]'::jsonb, 'null'::jsonb]`).Scan(&anys); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`[{"a": 1.50}, [1, "x", null], null]`), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(anys, want) {
		t.Errorf("jsonb[]: got %#v, want %#v", anys, want)
	}
}
