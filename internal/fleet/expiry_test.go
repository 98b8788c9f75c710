package fleet

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestFleetCountsAndExpiryFollowEveryWrite: after every kind of write of
// vehicles, trailers and their documents (one by one and in bulk, files
// given and taken, expiries moved, documents deleted, soft deletes and
// restores, status and type changes, a hard delete, a load under
// session_replication_role = replica and a compaction), the sums of
// fleet_counts are the live records by holder type, status and type, and
// every record has its fleet_expiry row with live and expired_from as
// worked out here from its documents.
func TestFleetCountsAndExpiryFollowEveryWrite(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a := fixtures.Company(t, db, fixtures.CompanyName("A"))
	b := fixtures.Company(t, db, fixtures.CompanyName("B"))
	companies := []uuid.UUID{a, b}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, wantLive, wantExpired int) {
		t.Helper()
		var bad, live, expired int
		err := db.QueryRow(ctx, `
			WITH records AS (
				SELECT company_id, 'vehicle' AS holder, id, status, type, deleted_at FROM vehicles WHERE company_id = ANY ($1)
				UNION ALL
				SELECT company_id, 'trailer', id, status, type, deleted_at FROM trailers WHERE company_id = ANY ($1)
			), counted AS (
				SELECT company_id, holder, status, type, count(*)::int AS n FROM records
				WHERE deleted_at IS NULL GROUP BY 1, 2, 3, 4
			), stored AS (
				SELECT company_id, holder_type AS holder, status, type, sum(live)::int AS n FROM fleet_counts
				WHERE company_id = ANY ($1) GROUP BY 1, 2, 3, 4 HAVING sum(live) <> 0
			), dates AS (
				SELECT r.id, r.company_id, r.holder, r.deleted_at IS NULL AS live,
					(SELECT min(dd.valid_until) + 1 FROM driver_documents dd
						WHERE dd.holder_id = r.id AND dd.current_file_id IS NOT NULL) AS expired_from
				FROM records r
			)
			SELECT
				(SELECT count(*) FROM counted c FULL JOIN stored s USING (company_id, holder, status, type)
					WHERE c.n IS DISTINCT FROM s.n)
				+ (SELECT count(*) FROM dates d FULL JOIN (SELECT * FROM fleet_expiry WHERE company_id = ANY ($1)) e
					ON e.holder_id = d.id
					WHERE (d.company_id, d.holder, d.live, d.expired_from)
						IS DISTINCT FROM (e.company_id, e.holder_type, e.live, e.expired_from)),
				(SELECT count(*) FROM records WHERE deleted_at IS NULL),
				(SELECT count(*) FROM dates WHERE live AND expired_from <= current_date)`, companies).Scan(&bad, &live, &expired)
		if err != nil {
			t.Fatal(err)
		}
		if bad != 0 {
			t.Errorf("%s: %d stored counts or expiry rows differ from the records", step, bad)
		}
		if live != wantLive || expired != wantExpired {
			t.Fatalf("%s: %d live records, %d expired, want %d and %d: the step did not do what the test means",
				step, live, expired, wantLive, wantExpired)
		}
	}
	// bulk inserts n vehicles (every third a light one, every other one in
	// service) or trailers into the company in one statement, numbered
	// from seq, each with its documents.
	bulk := func(table string, company uuid.UUID, seq, n int) {
		t.Helper()
		prefix, typ, holder := "VEH-", "CASE WHEN g % 3 = 0 THEN 'pkv' ELSE 'lkv' END", "vehicle"
		if table == "trailers" {
			prefix, typ, holder = "TRL-", "'standard'", "trailer"
		}
		exec(`INSERT INTO `+table+` (company_id, internal_number, internal_seq, type, status)
			SELECT $1, '`+prefix+`' || ($2::int + g), $2::int + g, `+typ+`,
				CASE WHEN g % 2 = 0 THEN 'active' ELSE 'in_service' END
			FROM generate_series(1, $3::int) g`, company, seq, n)
		exec(`INSERT INTO driver_documents (company_id, holder_type, `+holder+`_id, type, valid_until)
			SELECT r.company_id, $2, r.id, b.type, current_date + (r.internal_seq::int % 7) * 10 - 30
			FROM `+table+` r CROSS JOIN konvoj_builtin_document_types($2) b
			WHERE r.company_id = $1 AND konvoj_fleet_type_applies($2, r.type, b.type)
			ON CONFLICT DO NOTHING`, company, holder)
	}
	// files gives the documents matched by cond (on dd) a file each, in one
	// statement.
	files := func(cond string, args ...any) {
		t.Helper()
		exec(`WITH f AS (
				INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes,
					version, storage_path, storage_disk, hash_sha256)
				SELECT dd.company_id, dd.id, 'f.pdf', 'f.pdf', 'application/pdf', 1, 1, 'x/f.pdf', 'local', repeat('0', 64)
				FROM driver_documents dd WHERE dd.holder_type <> 'driver' AND `+cond+`
				RETURNING id, document_id)
			UPDATE driver_documents dd SET current_file_id = f.id FROM f WHERE dd.id = f.document_id`, args...)
	}

	bulk("vehicles", a, 0, 6)
	bulk("trailers", a, 0, 4)
	bulk("vehicles", b, 0, 2)
	check("inserted, no files", 12, 0)

	files(`dd.company_id = $1`, a)
	// Valid until, per record, 30 days ago to 30 days ahead: the
	// records of seq 1 and 2 (a vehicle, a trailer each) have an expired one.
	check("files given in bulk", 12, 4)

	var v1, t1 uuid.UUID
	if err := db.QueryRow(ctx, `SELECT id FROM vehicles WHERE company_id = $1 AND internal_seq = 1`, a).Scan(&v1); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT id FROM trailers WHERE company_id = $1 AND internal_seq = 1`, a).Scan(&t1); err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE driver_documents SET valid_until = current_date + 100 WHERE vehicle_id = $1 AND type = 'technical_inspection'`, v1)
	check("one of its expired documents renewed", 12, 4)
	exec(`UPDATE driver_documents SET valid_until = current_date + 100 WHERE vehicle_id = $1`, v1)
	check("all renewed", 12, 3)
	exec(`UPDATE driver_documents SET valid_until = current_date WHERE vehicle_id = $1 AND type = 'liability_insurance'`, v1)
	check("expires today: not yet expired", 12, 3)
	exec(`UPDATE driver_documents SET valid_until = current_date - 1 WHERE vehicle_id = $1 AND type = 'liability_insurance'`, v1)
	check("expired yesterday", 12, 4)
	exec(`UPDATE driver_documents SET current_file_id = NULL WHERE vehicle_id = $1 AND type = 'liability_insurance'`, v1)
	check("its file taken", 12, 3)
	exec(`UPDATE driver_documents SET number = 'N-1' WHERE company_id = $1`, a)
	check("other columns edited", 12, 3)
	exec(`UPDATE driver_documents SET current_file_id = NULL WHERE trailer_id = $1 AND valid_until < current_date`, t1)
	exec(`DELETE FROM document_files WHERE document_id IN (SELECT id FROM driver_documents WHERE trailer_id = $1 AND valid_until < current_date)`, t1)
	exec(`DELETE FROM driver_documents WHERE trailer_id = $1 AND valid_until < current_date`, t1)
	check("an expired document's file taken and the document deleted", 12, 2)

	exec(`UPDATE vehicles SET status = 'inactive', type = 'pkv' WHERE company_id = $1 AND internal_seq <= 2`, a)
	check("status and type of several changed in one statement", 12, 2)
	exec(`UPDATE vehicles SET odometer_km = 1000 WHERE company_id = $1`, a)
	check("other columns of the records edited", 12, 2)
	exec(`UPDATE trailers SET deleted_at = now() WHERE id = (SELECT id FROM trailers WHERE company_id = $1 AND internal_seq = 2)`, a)
	check("soft delete of an expired trailer", 11, 1)
	exec(`UPDATE trailers SET status = 'inactive' WHERE company_id = $1 AND deleted_at IS NOT NULL`, a)
	check("status of a deleted trailer changed", 11, 1)
	exec(`UPDATE trailers SET deleted_at = NULL WHERE company_id = $1`, a)
	check("restore", 12, 2)

	var v6 uuid.UUID
	if err := db.QueryRow(ctx, `SELECT id FROM vehicles WHERE company_id = $1 AND internal_seq = 6`, a).Scan(&v6); err != nil {
		t.Fatal(err)
	}
	exec(`UPDATE driver_documents SET current_file_id = NULL WHERE vehicle_id = $1`, v6)
	exec(`DELETE FROM document_files WHERE document_id IN (SELECT id FROM driver_documents WHERE vehicle_id = $1)`, v6)
	exec(`DELETE FROM driver_documents WHERE vehicle_id = $1`, v6)
	exec(`DELETE FROM fleet_identifiers WHERE holder_id = $1`, v6)
	exec(`DELETE FROM vehicles WHERE id = $1`, v6)
	check("hard delete", 11, 2)

	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO vehicles (company_id, internal_number, internal_seq, type) VALUES ($1, 'VEH-0100', 100, 'lkv')`, b); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO driver_documents (company_id, holder_type, vehicle_id, type, valid_until)
		SELECT company_id, 'vehicle', id, 'technical_inspection', current_date - 5 FROM vehicles WHERE company_id = $1 AND internal_seq = 100`, b); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	files(`dd.company_id = $1 AND dd.vehicle_id = (SELECT id FROM vehicles WHERE company_id = $1 AND internal_seq = 100)`, b)
	check("loaded as the scale seed loads", 12, 3)

	if err := CompactCounts(ctx, db); err != nil {
		t.Fatal(err)
	}
	check("compacted", 12, 3)
	var rows, groups int
	if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM fleet_counts WHERE company_id = ANY ($1)),
		(SELECT count(*) FROM (SELECT DISTINCT company_id, status, type FROM vehicles WHERE company_id = ANY ($1) AND deleted_at IS NULL) v)
		+ (SELECT count(*) FROM (SELECT DISTINCT company_id, status, type FROM trailers WHERE company_id = ANY ($1) AND deleted_at IS NULL) t)`,
		companies).Scan(&rows, &groups); err != nil {
		t.Fatal(err)
	}
	if rows != groups {
		t.Errorf("%d rows of counts after the compaction, want one per company, holder type, status and type (%d)", rows, groups)
	}
}
