package drivers_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// expiryCompany is a company whose drivers' documents cover what the
// expired rule has to tell apart: no file, a file without expiry, dates on
// both sides of today, and validity chains of one and two steps (the
// built-in work permit, capped by the residence permit or the biometric
// visa; a custom type capped by the work permit).
func expiryCompany(t *testing.T, db *pgxpool.Pool, name string, drivers int) uuid.UUID {
	t.Helper()
	company := fixtures.Company(t, db, fixtures.CompanyName(name))
	for i := range drivers {
		fixtures.Driver(t, db, company, fixtures.Email(fmt.Sprintf("e%d@%s.example", i, name)))
	}
	exec(t, db, `INSERT INTO document_types (company_id, code, names, capped_by) VALUES ($1, 'site_pass', '{"en": "Site pass"}', 'work_permit')`, company)
	exec(t, db, `INSERT INTO driver_documents (company_id, driver_id, type)
		SELECT company_id, id, 'site_pass' FROM drivers WHERE company_id = $1`, company)
	// A fixed pseudo-random spread (hashes of the ids) over the chained
	// types and the passport (the others stay without a file, so that the
	// chains decide most drivers): a third without a file, a tenth of the
	// rest without expiry, the others from 40 days ago to 40 days ahead.
	exec(t, db, `
		WITH n AS (
			SELECT id, abs(hashtext(id::text)) AS h FROM driver_documents WHERE company_id = $1
				AND type IN ('passport', 'work_permit', 'residence_permit', 'visa_biometrics', 'site_pass')
		), f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version, storage_path, storage_disk, hash_sha256)
			SELECT $1, n.id, 'v1.pdf', 'a.pdf', 'application/pdf', 1, 1, 'x', 'local', repeat('a', 64) FROM n WHERE n.h % 3 <> 0
			RETURNING id, document_id
		)
		UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = CASE WHEN n.h % 10 = 1 THEN NULL ELSE konvoj_today('Europe/Prague') + (n.h / 7 % 81)::int - 40 END
		FROM f JOIN n ON n.id = f.document_id WHERE dd.id = f.document_id`, company)
	return company
}

func exec(t *testing.T, db *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := db.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// deref is *s, or "none" for nil.
func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

// execReplica runs a statement under session_replication_role = replica,
// as the scale seed loads its data: only triggers enabled ALWAYS fire.
func execReplica(t *testing.T, db *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	ctx := context.Background()
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, sql, args...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
}

// konvoj_effective_until gives every document the effective status
// konvoj_document_statuses gives it, on each day from 45 days back to 45
// ahead: konvoj_document_status(has_file, until, day), for every status,
// chains and retired types included. konvoj_expired_from, worked out from
// it, gives every driver the first such day with an expired document:
// "expired_from <= day" holds exactly for the drivers with an effectively
// expired document that day.
func TestEffectiveUntilMatchesDocumentStatuses(t *testing.T) {
	db := pgtest.New(t)
	company := expiryCompany(t, db, "chains", 60)
	check := func(step string) {
		t.Helper()
		ctx := context.Background()
		var days, mismatches, missing int
		var seen, byCap []string
		err := db.QueryRow(ctx, `
			WITH co AS (SELECT konvoj_today('Europe/Prague') AS today, f.chains, f.retired
				FROM company_document_facts f WHERE f.company_id = $1),
			x AS (
				SELECT t.day, s.id, s.status, s.own_status, konvoj_document_status(e.has_file, e.until, t.day) AS stored
				FROM drivers d CROSS JOIN co
				CROSS JOIN LATERAL (SELECT co.today + g AS day FROM generate_series(-45, 45) g) t
				CROSS JOIN LATERAL konvoj_document_statuses($1, d.id, t.day, co.chains, co.retired) s
				LEFT JOIN konvoj_effective_until($1, d.id, co.chains, co.retired) e ON e.id = s.id
				WHERE d.company_id = $1
			)
			SELECT count(DISTINCT day), count(*) FILTER (WHERE stored IS DISTINCT FROM status),
				(SELECT count(*) FROM drivers d, co, konvoj_effective_until($1, d.id, co.chains, co.retired) e
					WHERE d.company_id = $1 AND e.type = ANY (co.retired)),
				array_agg(DISTINCT status ORDER BY status),
				array_agg(DISTINCT status ORDER BY status) FILTER (WHERE status <> own_status)
			FROM x`, company).Scan(&days, &mismatches, &missing, &seen, &byCap)
		if err != nil {
			t.Fatal(err)
		}
		if mismatches != 0 || missing != 0 {
			t.Errorf("%s: %d (document, day) pairs where konvoj_effective_until and konvoj_document_statuses disagree, %d rows of retired types",
				step, mismatches, missing)
		}
		all := []string{"expired", "expiring_soon", "no_data", "valid", "warning"}
		if days != 91 || !slices.Equal(seen, all) || !slices.Equal(byCap, []string{"expired", "expiring_soon", "no_data", "warning"}) {
			t.Fatalf("%s: %d days, statuses %v, by a cap %v: the data misses a case", step, days, seen, byCap)
		}

		var expired, capped int
		err = db.QueryRow(ctx, `
			WITH co AS (SELECT konvoj_today('Europe/Prague') AS today, f.chains, f.retired
				FROM company_document_facts f WHERE f.company_id = $1),
			x AS (
				SELECT t.day, d.id,
					coalesce(konvoj_expired_from($1, d.id, co.chains, co.retired) <= t.day, false) AS by_date,
					EXISTS (SELECT 1 FROM konvoj_document_statuses($1, d.id, t.day, co.chains, co.retired) s
						WHERE s.status = 'expired') AS by_status,
					EXISTS (SELECT 1 FROM konvoj_document_statuses($1, d.id, t.day, co.chains, co.retired) s
						WHERE s.status = 'expired' AND s.own_status <> 'expired') AS by_cap
				FROM drivers d CROSS JOIN co
				CROSS JOIN LATERAL (SELECT co.today + g AS day FROM generate_series(-45, 45) g) t
				WHERE d.company_id = $1
			)
			SELECT count(*) FILTER (WHERE by_date <> by_status),
				count(*) FILTER (WHERE by_status), count(*) FILTER (WHERE by_cap) FROM x`, company).
			Scan(&mismatches, &expired, &capped)
		if err != nil {
			t.Fatal(err)
		}
		if mismatches != 0 {
			t.Errorf("%s: %d (driver, day) pairs where konvoj_expired_from and konvoj_document_statuses disagree", step, mismatches)
		}
		if expired == 0 || capped == 0 {
			t.Fatalf("%s: %d expired and %d expired by a cap only: the data misses a case", step, expired, capped)
		}
	}
	check("chains")
	exec(t, db, `UPDATE document_types SET retired = true WHERE company_id = $1 AND code = 'site_pass'`, company)
	exec(t, db, `INSERT INTO document_types (company_id, code, names, capped_by) VALUES ($1, 'yard_pass', '{"en": "Yard pass"}', 'passport')`, company)
	exec(t, db, `INSERT INTO driver_documents (company_id, driver_id, type, current_file_id, valid_until)
		SELECT d.company_id, d.id, 'yard_pass', dd.current_file_id, konvoj_today('Europe/Prague') + 40
		FROM drivers d JOIN driver_documents dd ON dd.driver_id = d.id AND dd.type = 'site_pass'
		WHERE d.company_id = $1`, company)
	check("a type retired, another capped by the passport")
}

// driver_expiry holds konvoj_expired_from of every driver with one, and
// document_effective konvoj_effective_until of every document, after every
// kind of write: files added and removed, dates changed, documents
// inserted in bulk and deleted, a document moved to another driver, writes
// under session_replication_role = replica (the scale seed's load), a type
// retired and restored, and a new cap (the company's chains change).
func TestDriverExpiryFollowsEveryWrite(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a := expiryCompany(t, db, "a", 30)
	b := expiryCompany(t, db, "b", 10)
	check := func(step string) {
		t.Helper()
		var stale, kept int
		err := db.QueryRow(ctx, `
			SELECT count(*) FILTER (WHERE e.expired_from IS DISTINCT FROM konvoj_expired_from(d.company_id, d.id, f.chains, f.retired)
					OR e.company_id IS DISTINCT FROM (CASE WHEN e.driver_id IS NULL THEN NULL ELSE d.company_id END)),
				count(e.driver_id)
			FROM drivers d
			JOIN company_document_facts f ON f.company_id = d.company_id
			LEFT JOIN driver_expiry e ON e.driver_id = d.id
			WHERE d.company_id IN ($1, $2)`, a, b).Scan(&stale, &kept)
		if err != nil {
			t.Fatal(err)
		}
		if stale != 0 {
			t.Errorf("%s: %d drivers whose driver_expiry row is not konvoj_expired_from", step, stale)
		}
		if kept == 0 {
			t.Fatalf("%s: no driver has an expired-from day: the data misses the case", step)
		}
		var wrong, rows int
		err = db.QueryRow(ctx, `
			WITH k AS (
				SELECT e.*, d.company_id FROM drivers d
				JOIN company_document_facts f ON f.company_id = d.company_id
				CROSS JOIN LATERAL konvoj_effective_until(d.company_id, d.id, f.chains, f.retired) e
				WHERE d.company_id IN ($1, $2)
			), s AS (SELECT * FROM document_effective WHERE company_id IN ($1, $2))
			SELECT count(*) FILTER (WHERE (s.company_id, s.type, s.has_file, s.until) IS DISTINCT FROM (k.company_id, k.type, k.has_file, k.until)
					OR s.document_id IS NULL OR k.id IS NULL),
				count(s.document_id)
			FROM s FULL JOIN k ON k.id = s.document_id`, a, b).Scan(&wrong, &rows)
		if err != nil {
			t.Fatal(err)
		}
		if wrong != 0 {
			t.Errorf("%s: %d documents whose document_effective row is missing, extra or not konvoj_effective_until", step, wrong)
		}
		if rows == 0 {
			t.Fatalf("%s: no document_effective rows", step)
		}
	}
	check("created")

	var doc, driver uuid.UUID
	if err := db.QueryRow(ctx, `SELECT id, driver_id FROM driver_documents
		WHERE company_id = $1 AND type = 'passport' AND current_file_id IS NOT NULL AND valid_until IS NOT NULL ORDER BY id LIMIT 1`, a).Scan(&doc, &driver); err != nil {
		t.Fatal(err)
	}
	exec(t, db, `UPDATE driver_documents SET valid_until = konvoj_today('Europe/Prague') - 100 WHERE id = $1`, doc)
	check("a date moved back")
	var from *string
	if err := db.QueryRow(ctx, `SELECT (expired_from - konvoj_today('Europe/Prague'))::text FROM driver_expiry WHERE driver_id = $1`, driver).Scan(&from); err != nil {
		t.Fatal(err)
	}
	if from == nil || *from != "-99" {
		t.Errorf("a driver whose passport expired 100 days ago: expired from day %v, want -99", deref(from))
	}
	exec(t, db, `UPDATE driver_documents SET current_file_id = NULL WHERE company_id = $1 AND type = 'passport'`, a)
	check("files removed")
	exec(t, db, `UPDATE driver_documents SET number = 'X1' WHERE company_id = $1`, a)
	check("other columns edited")
	exec(t, db, `UPDATE driver_documents dd SET current_file_id = f.id
		FROM document_files f WHERE f.document_id = dd.id AND dd.company_id = $1 AND dd.type = 'passport'`, a)
	check("files back")
	// Without them, a cap's step picks nothing, where it picked a document
	// without a file (no_data, worse than expired).
	exec(t, db, `DELETE FROM driver_documents WHERE company_id = $1 AND type IN ('residence_permit', 'visa_biometrics')
		AND current_file_id IS NULL`, a)
	check("the caps' documents without a file deleted")
	exec(t, db, `INSERT INTO driver_documents (company_id, driver_id, type, current_file_id, valid_until)
		SELECT company_id, driver_id, 'residence_permit', current_file_id, konvoj_today('Europe/Prague') - 3
		FROM driver_documents p WHERE company_id = $1 AND type = 'passport' AND NOT EXISTS (
			SELECT 1 FROM driver_documents r WHERE r.driver_id = p.driver_id AND r.type = 'residence_permit')`, a)
	check("documents inserted in bulk")

	// The passport dated back above moves to another driver, whose own
	// passport (without a file) it replaces.
	var other uuid.UUID
	if err := db.QueryRow(ctx, `SELECT o.driver_id FROM driver_documents d
		JOIN driver_documents o ON o.company_id = d.company_id AND o.type = d.type AND o.driver_id <> d.driver_id AND o.current_file_id IS NULL
		WHERE d.id = $1 ORDER BY o.driver_id LIMIT 1`, doc).Scan(&other); err != nil {
		t.Fatalf("no other driver without a file of the moved document's type: %v", err)
	}
	exec(t, db, `DELETE FROM driver_documents d USING driver_documents m
		WHERE m.id = $2 AND d.driver_id = $1 AND d.type = m.type`, other, doc)
	exec(t, db, `UPDATE driver_documents SET driver_id = $1 WHERE id = $2`, other, doc)
	check("a document moved to another driver")
	if err := db.QueryRow(ctx, `SELECT (expired_from - konvoj_today('Europe/Prague'))::text FROM driver_expiry WHERE driver_id = $1`, other).Scan(&from); err != nil {
		t.Fatal(err)
	}
	if from == nil || *from != "-99" {
		t.Errorf("the driver the passport expired 100 days ago moved to: expired from day %v, want -99", deref(from))
	}

	execReplica(t, db, `UPDATE driver_documents SET valid_until = valid_until - 30 WHERE company_id = $1`, b)
	check("dates changed in replica mode")

	// A type outside every chain expired for every driver: retiring it
	// changes the retired types only, not the chains.
	exec(t, db, `INSERT INTO document_types (company_id, code, names) VALUES ($1, 'fuel_card', '{"en": "Fuel card"}')`, a)
	exec(t, db, `INSERT INTO driver_documents (company_id, driver_id, type, current_file_id, valid_until)
		SELECT company_id, driver_id, 'fuel_card', current_file_id, konvoj_today('Europe/Prague') - 200
		FROM driver_documents WHERE company_id = $1 AND type = 'site_pass' AND current_file_id IS NOT NULL`, a)
	check("an expired type added")
	for _, code := range []string{"fuel_card", "site_pass"} {
		exec(t, db, `UPDATE document_types SET retired = true WHERE company_id = $1 AND code = $2`, a, code)
		check(code + " retired")
		exec(t, db, `UPDATE document_types SET retired = false WHERE company_id = $1 AND code = $2`, a, code)
		check(code + " restored")
	}
	exec(t, db, `INSERT INTO document_types (company_id, code, names, capped_by) VALUES ($1, 'yard_pass', '{"en": "Yard pass"}', 'passport')`, a)
	exec(t, db, `INSERT INTO driver_documents (company_id, driver_id, type, current_file_id, valid_until)
		SELECT company_id, driver_id, 'yard_pass', current_file_id, konvoj_today('Europe/Prague') + 50
		FROM driver_documents WHERE company_id = $1 AND type = 'site_pass'`, a)
	exec(t, db, `UPDATE document_types SET capped_by = 'drivers_license' WHERE company_id = $1 AND code = 'yard_pass'`, a)
	check("a cap changed")

}

// The home page's counts of drivers by document status (expired,
// expiring_soon, warning) are the live drivers with a document in that
// effective status by konvoj_document_statuses, chains included, and no
// other company's.
func TestDocumentStatusCountsMatchStatuses(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	company := expiryCompany(t, db, "counts", 60)
	expiryCompany(t, db, "other", 10)
	// A soft-deleted driver with an expired document counts nowhere.
	exec(t, db, `UPDATE drivers SET deleted_at = now() WHERE id = (SELECT driver_id FROM driver_expiry
		WHERE company_id = $1 AND expired_from <= konvoj_today('Europe/Prague') ORDER BY driver_id LIMIT 1)`, company)
	p := auth.Principal{CompanyID: company, Role: auth.RoleHRManager}
	got, err := drivers.NewService(db, []byte("k")).DocumentStatusCounts(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	rows, err := db.Query(ctx, `
		SELECT s.status, count(DISTINCT d.id)::int
		FROM drivers d JOIN company_document_facts f ON f.company_id = d.company_id
		CROSS JOIN LATERAL konvoj_document_statuses(d.company_id, d.id, konvoj_today('Europe/Prague'), f.chains, f.retired) s
		WHERE d.company_id = $1 AND d.deleted_at IS NULL AND s.status IN ('expired', 'expiring_soon', 'warning')
		GROUP BY 1`, company)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			t.Fatal(err)
		}
		want[st] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != 3 || !maps.Equal(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
}

// Two transactions writing documents of one driver at once, the work
// permit in one and the residence permit that caps it in the other: the
// second waits for the first, and the stored rows then include both
// changes (without the wait, the second worked the driver out from the
// first's old residence permit and left the work permit valid). Writes of
// another driver of the company do not wait.
func TestConcurrentDocumentWritesKeepEffectiveDates(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	company := fixtures.Company(t, db, fixtures.CompanyName("race"))
	driver := fixtures.Driver(t, db, company, fixtures.Email("race@example.cz"))
	exec(t, db, `
		WITH f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version, storage_path, storage_disk, hash_sha256)
			SELECT company_id, id, 'v1.pdf', 'a.pdf', 'application/pdf', 1, 1, 'x', 'local', repeat('a', 64) FROM driver_documents
			WHERE driver_id = $1 AND type IN ('work_permit', 'residence_permit')
			RETURNING id, document_id
		)
		UPDATE driver_documents dd SET current_file_id = f.id, valid_until = konvoj_today('Europe/Prague') + 200
		FROM f WHERE dd.id = f.document_id`, driver)

	first, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := first.Exec(ctx, `UPDATE driver_documents SET valid_until = konvoj_today('Europe/Prague') - 2
		WHERE driver_id = $1 AND type = 'residence_permit'`, driver); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec(ctx, `UPDATE driver_documents SET valid_until = konvoj_today('Europe/Prague') + 100
			WHERE driver_id = $1 AND type = 'work_permit'`, driver)
		done <- err
	}()
	waited := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !waited; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := db.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE 'UPDATE driver_documents%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		waited = n > 0
		if len(done) > 0 {
			break
		}
	}
	if !waited {
		t.Error("the second write did not wait for the first")
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var permit, from string
	if err := db.QueryRow(ctx, `
		SELECT (e.until - konvoj_today('Europe/Prague'))::text, (x.expired_from - konvoj_today('Europe/Prague'))::text
		FROM document_effective e JOIN driver_documents dd ON dd.id = e.document_id
		JOIN driver_expiry x ON x.driver_id = dd.driver_id
		WHERE dd.driver_id = $1 AND dd.type = 'work_permit'`, driver).Scan(&permit, &from); err != nil {
		t.Fatal(err)
	}
	if permit != "-2" || from != "-1" {
		t.Errorf("work permit effective until day %s, driver expired from day %s; want -2 and -1 (capped by the residence permit)", permit, from)
	}

	// Another driver's documents are written meanwhile without waiting.
	other := fixtures.Driver(t, db, company, fixtures.Email("other@example.cz"))
	open, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Rollback(ctx)
	if _, err := open.Exec(ctx, `UPDATE driver_documents SET valid_until = konvoj_today('Europe/Prague') + 5 WHERE driver_id = $1`, driver); err != nil {
		t.Fatal(err)
	}
	quick, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := db.Exec(quick, `UPDATE driver_documents SET valid_until = konvoj_today('Europe/Prague') + 5 WHERE driver_id = $1`, other); err != nil {
		t.Errorf("a write of another driver's documents beside an open one: %v", err)
	}
}

// The compliance report's statuses are the effective statuses
// konvoj_document_statuses gives, chains included, for every required
// type of every driver (no_data for a type the driver has no document of),
// and the list's documents summary of each driver counts them.
func TestComplianceStatusesMatchDocumentStatuses(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	company := expiryCompany(t, db, "compliance", 60)
	exec(t, db, `INSERT INTO document_rules (company_id, document_type, required, lead_days)
		SELECT $1, t, true, 30 FROM unnest(ARRAY['passport', 'work_permit', 'residence_permit', 'site_pass']) t
		ON CONFLICT (company_id, holder_type, document_type) DO UPDATE SET required = true`, company)
	want := map[string]string{}
	rows, err := db.Query(ctx, `
		SELECT d.id::text || '/' || s.type, s.status
		FROM drivers d JOIN company_document_facts f ON f.company_id = d.company_id
		CROSS JOIN LATERAL konvoj_document_statuses(d.company_id, d.id, konvoj_today('Europe/Prague'), f.chains, f.retired) s
		WHERE d.company_id = $1`, company)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, st string
		if err := rows.Scan(&k, &st); err != nil {
			t.Fatal(err)
		}
		want[k] = st
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var batch []drivers.ExportRow
	ids, err := db.Query(ctx, `SELECT id FROM drivers WHERE company_id = $1`, company)
	if err != nil {
		t.Fatal(err)
	}
	for ids.Next() {
		var r drivers.ExportRow
		if err := ids.Scan(&r.Driver.ID); err != nil {
			t.Fatal(err)
		}
		batch = append(batch, r)
	}
	if err := ids.Err(); err != nil {
		t.Fatal(err)
	}
	got, err := drivers.RequiredDocuments(drivers.NewService(db, []byte("k")), ctx, company, batch)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for id, docs := range got {
		for _, d := range docs {
			w, ok := want[id.String()+"/"+d.DocumentType]
			if !ok {
				w = "no_data"
			}
			if d.Status != w {
				t.Errorf("driver %s, %s: status %s, want %s", id, d.DocumentType, d.Status, w)
			}
			seen[d.DocumentType+" "+d.Status]++
		}
	}
	if len(got) != 60 || seen["work_permit expired"] == 0 || seen["site_pass expired"] == 0 || seen["work_permit no_data"] == 0 {
		t.Fatalf("%d drivers, statuses %v: the data misses a case", len(got), seen)
	}

	// The list's documents summary of every driver counts the same statuses.
	p := auth.Principal{CompanyID: company, Role: auth.RoleHRManager}
	list, err := drivers.NewService(db, []byte("k")).List(ctx, p, func(lp *drivers.ListParams) error {
		*lp = drivers.ListParams{Page: paging.Request{Number: 1, Size: 100}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range list.Items {
		var w drivers.DocumentsSummary
		for k, st := range want {
			if !strings.HasPrefix(k, it.ID.String()+"/") {
				continue
			}
			w.Total++
			switch st {
			case "valid":
				w.Valid++
			case "warning":
				w.Warning++
			case "expiring_soon":
				w.ExpiringSoon++
			case "expired":
				w.Expired++
			case "no_data":
				w.NoData++
			}
		}
		if it.DocumentsSummary != w {
			t.Errorf("driver %s: summary %+v, want %+v", it.ID, it.DocumentsSummary, w)
		}
	}
	if len(list.Items) != 60 {
		t.Errorf("the list has %d drivers, want 60", len(list.Items))
	}
}
