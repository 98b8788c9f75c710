package seed_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/seed"
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/internal/storage"
)

// TestDemoFleet: the demo's fleet matches its drivers: 40 trucks, 10 light
// vehicles with their assignment modes, 45 trailers of every type (the
// refrigerated ones tagged frigo, some tagged adr), their documents in
// every status with stored files, ready records among them, and drivers
// in transport units, the demo driver user among them. A second run
// changes nothing.
func TestDemoFleet(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	files, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := seed.DemoServices{DB: db, Set: services.New(db, services.Options{Files: files, UploadMaxBytes: 10 << 20, CursorKey: []byte("demo-test-cursor-key")})}
	start := time.Now()
	res, err := seed.Demo(ctx, s, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("demo seeded in %s", time.Since(start).Round(time.Millisecond))
	one := func(sql string) string {
		var v string
		if err := db.QueryRow(ctx, sql, res.CompanyID).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return v
	}
	strs := func(sql string) string {
		rows, err := db.Query(ctx, sql, res.CompanyID)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, ",")
	}
	for _, c := range []struct{ what, sql, want string }{
		{"vehicles by type", `SELECT string_agg(type || ' ' || n, ', ' ORDER BY type) FROM (SELECT type, count(*) n FROM vehicles WHERE company_id = $1 GROUP BY 1) x`, "lkv 40, pkv 10"},
		{"trailers", `SELECT count(*)::text FROM trailers WHERE company_id = $1`, "45"},
		{"trailer types", `SELECT string_agg(DISTINCT type, ',') FROM trailers WHERE company_id = $1`, "frigo,mega,standard,tautliner,van"},
		{"light vehicles' modes", `SELECT string_agg(DISTINCT assignment_mode, ',') FROM vehicles WHERE company_id = $1 AND type = 'pkv'`, "assigned,pool,unassigned"},
		{"trucks' modes", `SELECT count(assignment_mode)::text FROM vehicles WHERE company_id = $1 AND type = 'lkv'`, "0"},
		{"refrigerated trailers not tagged frigo", `SELECT count(*)::text FROM trailers WHERE company_id = $1 AND has_refrigeration <> ('frigo' = ANY (tags))`, "0"},
		{"frigo trailers", `SELECT count(*)::text FROM trailers WHERE company_id = $1 AND type = 'frigo' AND has_refrigeration AND temperature_min IS NOT NULL`, "9"},
		{"vehicle statuses", `SELECT string_agg(DISTINCT status, ',') FROM vehicles WHERE company_id = $1`, "active,in_service,inactive,sold"},
		{"the demo driver in a unit", `SELECT count(*)::text FROM transport_units u JOIN drivers d ON d.id = u.driver_id
			WHERE u.company_id = $1 AND d.email = 'jan.novak@demo-transport.cz' AND u.unassigned_at IS NULL`, "1"},
	} {
		if got := one(c.sql); got != c.want {
			t.Errorf("%s: %s, want %s", c.what, got, c.want)
		}
	}
	if got := one(`SELECT count(*)::text FROM vehicles WHERE company_id = $1 AND 'adr' = ANY (tags)`); got == "0" {
		t.Error("no vehicle tagged adr")
	}
	if got := one(`SELECT count(*)::text FROM trailers WHERE company_id = $1 AND 'adr' = ANY (tags)`); got == "0" {
		t.Error("no trailer tagged adr")
	}
	if units := one(`SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND unassigned_at IS NULL`); units != "35" {
		t.Errorf("%s transport units, want 35", units)
	}
	// Units in every state of readiness.
	for _, c := range []struct{ what, sql string }{
		{"ready", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND is_ready AND (ready_until IS NULL OR ready_until > current_date + 7)`},
		{"ready, not for long", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND is_ready AND ready_until <= current_date + 7`},
		{"driver not active", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND not_ready_reasons @> '[{"code": "driver_not_active"}]'`},
		{"vehicle not active", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND not_ready_reasons @> '[{"code": "vehicle_not_active"}]'`},
		{"trailer not active", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND not_ready_reasons @> '[{"code": "trailer_not_active"}]'`},
		{"a document expired", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND not_ready_reasons @> '[{"code": "document_expired"}]'`},
		{"a document missing", `SELECT count(*)::text FROM transport_units WHERE company_id = $1 AND not_ready_reasons @> '[{"code": "document_missing"}]'`},
	} {
		if got := one(c.sql); got == "0" {
			t.Errorf("no transport unit %s", c.what)
		}
	}
	for _, holder := range []string{"vehicle", "trailer"} {
		got := strs(`SELECT DISTINCT konvoj_document_status(d.current_file_id IS NOT NULL, d.valid_until, konvoj_today('Europe/Prague'))
			FROM driver_documents d WHERE d.company_id = $1 AND d.holder_type = '` + holder + `' ORDER BY 1`)
		if got != "expired,expiring_soon,no_data,valid,warning" {
			t.Errorf("%s document statuses: %s", holder, got)
		}
		ready := one(`SELECT count(*)::text FROM ` + holder + `s r WHERE r.company_id = $1 AND r.status = 'active' AND NOT EXISTS (
			SELECT 1 FROM unnest(konvoj_fleet_required_types(r.company_id, '` + holder + `', r.type, r.tags)) rt(type)
			WHERE NOT EXISTS (SELECT 1 FROM driver_documents d WHERE d.` + holder + `_id = r.id AND d.type = rt.type
				AND konvoj_document_status(d.current_file_id IS NOT NULL, d.valid_until, konvoj_today('Europe/Prague'))
					IN ('valid', 'warning', 'expiring_soon')))`)
		if ready == "0" {
			t.Errorf("no ready %s", holder)
		}
	}
	if got := one(`SELECT count(*)::text FROM document_files f JOIN driver_documents d ON d.id = f.document_id
		WHERE d.company_id = $1 AND d.holder_type <> 'driver' AND f.version > 1`); got == "0" {
		t.Error("no renewed vehicle or trailer document")
	}

	counts := `SELECT concat_ws(' ', (SELECT count(*) FROM vehicles), (SELECT count(*) FROM trailers),
		(SELECT count(*) FROM document_files), (SELECT count(*) FROM transport_units), (SELECT count(*) FROM audit_logs))`
	before := one(counts + ` WHERE $1::uuid IS NOT NULL`)
	again, err := seed.Demo(ctx, s, time.Now())
	if err != nil || again.Created {
		t.Fatalf("second run: created %v, %v", again.Created, err)
	}
	if after := one(counts + ` WHERE $1::uuid IS NOT NULL`); after != before {
		t.Errorf("the second run changed the data: %s → %s", before, after)
	}
}
