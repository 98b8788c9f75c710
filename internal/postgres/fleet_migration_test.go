package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/migrations"
)

// The vehicles' and trailers' stored deadlines become their documents'
// valid_until, once, and the columns go (docs/fleet.md): a database with
// values before the migration has documents with those dates after it, and
// a light vehicle gets no tachograph calibration.
func TestFleetDatesBecomeDocuments(t *testing.T) {
	url := pgtest.NewEmpty(t)
	ctx := context.Background()
	pool, err := postgres.OpenSystem(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := provider.UpTo(ctx, 47); err != nil {
		t.Fatalf("migrate to 47: %v", err)
	}
	var lorry, van, trailer string
	err = pool.QueryRow(ctx, `
		WITH c AS (INSERT INTO companies (name) VALUES ('Before the fleet') RETURNING id),
		l AS (INSERT INTO vehicles (company_id, internal_number, internal_seq, type, plate_number,
				technical_inspection_until, insurance_until, tachograph_calibration_until)
			SELECT id, 'VEH-0001', 1, 'lkv', '1AB 2345', '2027-03-31', '2027-01-15', '2028-06-30' FROM c RETURNING id),
		v AS (INSERT INTO vehicles (company_id, internal_number, internal_seq, type, plate_number, technical_inspection_until)
			SELECT id, 'VEH-0002', 2, 'pkv', '2AB 2345', '2027-05-01' FROM c RETURNING id),
		tr AS (INSERT INTO trailers (company_id, internal_number, internal_seq, type, plate_number, insurance_until)
			SELECT id, 'TRL-0001', 1, 'standard', '3AB 2345', '2026-12-24' FROM c RETURNING id)
		SELECT (SELECT id::text FROM l), (SELECT id::text FROM v), (SELECT id::text FROM tr)`).Scan(&lorry, &van, &trailer)
	if err != nil {
		t.Fatalf("fleet before the migration: %v", err)
	}
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	dates := func(holder string) map[string]string {
		rows, err := pool.Query(ctx, `SELECT type, coalesce(valid_until::text, '') FROM driver_documents
			WHERE holder_id = $1 AND holder_type IN ('vehicle', 'trailer')`, holder)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for rows.Next() {
			var typ, until string
			if err := rows.Scan(&typ, &until); err != nil {
				t.Fatal(err)
			}
			out[typ] = until
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := map[string]map[string]string{
		lorry: {"technical_inspection": "2027-03-31", "liability_insurance": "2027-01-15", "tachograph_calibration": "2028-06-30",
			"community_licence_copy": "", "adr_vehicle_certificate": "", "registration_certificate": ""},
		van: {"technical_inspection": "2027-05-01", "liability_insurance": "", "adr_vehicle_certificate": "", "registration_certificate": ""},
		trailer: {"technical_inspection": "", "liability_insurance": "2026-12-24", "adr_vehicle_certificate": "", "atp_certificate": "",
			"registration_certificate": ""},
	}
	for holder, w := range want {
		got := dates(holder)
		if len(got) != len(w) {
			t.Errorf("holder %s: documents %v, want %v", holder, got, w)
			continue
		}
		for typ, until := range w {
			if g, ok := got[typ]; !ok || g != until {
				t.Errorf("holder %s %s: valid_until %q (present %v), want %q", holder, typ, g, ok, until)
			}
		}
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE table_name IN ('vehicles', 'trailers') AND column_name IN ('technical_inspection_until', 'insurance_until', 'tachograph_calibration_until')`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("date columns left after the migration: %d (%v)", left, err)
	}
}
