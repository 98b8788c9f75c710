package drivers_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// The index-friendly ranges of the document_status filter select exactly
// the stored documents (document_effective: has_file, until) to which
// konvoj_document_status gives each status, around every threshold (no
// file, no expiry, days -46..48), in a time zone far from UTC.
func TestStatusRangesMatchStatusFunction(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	for status, cond := range drivers.StatusRanges {
		rows, err := db.Query(ctx, `
			WITH co AS (SELECT konvoj_today('Pacific/Kiritimati') AS today),
			e AS (
				SELECT true AS has_file, co.today + g AS until FROM co, generate_series(-46, 48) g
				UNION ALL SELECT true, NULL
				UNION ALL SELECT false, NULL
			)
			SELECT konvoj_document_status(e.has_file, e.until, co.today) = $1,
				coalesce(`+cond+`, false), e.until - co.today
			FROM e CROSS JOIN co`, status)
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for rows.Next() {
			var byFunction, byRange bool
			var days *int
			if err := rows.Scan(&byFunction, &byRange, &days); err != nil {
				t.Fatal(err)
			}
			if byFunction != byRange {
				t.Errorf("%s: document %v days left: function %v, range %v", status, days, byFunction, byRange)
			}
			if byFunction {
				matched++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if matched == 0 {
			t.Errorf("%s: no document in this status; the test data misses it", status)
		}
	}
}

// The sums of driver_counts, from which an unfiltered or status-filtered
// list takes its total, equal the companies' live drivers by status after
// every kind of write: single and bulk inserts, status changes, soft
// deletes and restores, edits of other columns, hard deletes, and writes
// under session_replication_role = replica (the scale seed's load); and
// compacting them keeps the sums, those of a write that commits while it
// runs included, in one row per company and status.
func TestDriverCountsFollowEveryWrite(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a := fixtures.Company(t, db, fixtures.CompanyName("A"))
	b := fixtures.Company(t, db, fixtures.CompanyName("B"))
	companies := []uuid.UUID{a, b}
	check := func(step string, wantLive int) {
		t.Helper()
		rows, err := db.Query(ctx, `
			SELECT coalesce(c.company_id, n.company_id), coalesce(c.status, n.status), coalesce(c.n, 0), coalesce(n.live, 0)
			FROM (SELECT company_id, status, count(*)::int AS n FROM drivers
				WHERE deleted_at IS NULL AND company_id = ANY ($1) GROUP BY 1, 2) c
			FULL JOIN (SELECT company_id, status, sum(live)::int AS live FROM driver_counts
				WHERE company_id = ANY ($1) GROUP BY 1, 2) n
				ON n.company_id = c.company_id AND n.status = c.status`, companies)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		live := 0
		for rows.Next() {
			var company uuid.UUID
			var status string
			var counted, stored int
			if err := rows.Scan(&company, &status, &counted, &stored); err != nil {
				t.Fatal(err)
			}
			if counted != stored {
				t.Errorf("%s: company %s, %s: %d live drivers, driver_counts says %d", step, company, status, counted, stored)
			}
			live += counted
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if live != wantLive {
			t.Fatalf("%s: %d live drivers, want %d: the step did not do what the test means", step, live, wantLive)
		}
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// bulk inserts n drivers into the company in one statement, numbered
	// from seq, every other one on leave.
	const bulk = `INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, status, flags)
		SELECT $1, 'DRV-' || ($2::int + g), $2::int + g, 'Bulk', 'Driver', 'bulk-' || ($2::int + g) || '@example.test',
			CASE WHEN g % 2 = 0 THEN 'active' ELSE 'on_leave' END, '{}'
		FROM generate_series(1, $3::int) g`

	var gone uuid.UUID
	for i := 0; i < 3; i++ {
		gone = fixtures.Driver(t, db, a)
	}
	fixtures.Driver(t, db, a, fixtures.Status("on_leave"))
	deleted := fixtures.Driver(t, db, a, fixtures.Deleted())
	fixtures.Driver(t, db, b)
	fixtures.Driver(t, db, b, fixtures.Status("inactive"))
	check("created one by one", 6)

	exec(bulk, a, 1000, 6)
	check("bulk insert", 12)

	exec(`UPDATE drivers SET status = 'terminated' WHERE company_id = $1 AND status = 'on_leave'`, a)
	check("status of several changed in one statement", 12)

	exec(`UPDATE drivers SET phone = '+420 777 000 000' WHERE company_id = $1`, a)
	check("other columns edited", 12)

	if err := drivers.SoftDelete(ctx, db, a, gone); err != nil {
		t.Fatal(err)
	}
	check("soft delete", 11)

	exec(`UPDATE drivers SET deleted_at = NULL WHERE id = $1`, deleted)
	check("restore", 12)

	exec(`UPDATE drivers SET status = 'inactive' WHERE id = $1`, gone)
	check("status of a deleted driver changed", 12)

	exec(`DELETE FROM drivers WHERE company_id = $1 AND internal_seq > 1000`, a)
	check("hard delete", 6)

	execReplica(t, db, bulk, b, 2000, 4)
	check("bulk insert in replica mode", 10)

	// A write that commits while the compaction runs keeps its row.
	open, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Rollback(ctx)
	if _, err := open.Exec(ctx, bulk, b, 3000, 2); err != nil {
		t.Fatal(err)
	}
	var before int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM driver_counts WHERE company_id = ANY ($1)`, companies).Scan(&before); err != nil {
		t.Fatal(err)
	}
	if err := drivers.CompactCounts(ctx, db); err != nil {
		t.Fatal(err)
	}
	if err := open.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	check("compacted beside a write", 12)
	if err := drivers.CompactCounts(ctx, db); err != nil {
		t.Fatal(err)
	}
	check("compacted", 12)
	var rows, keys int
	if err := db.QueryRow(ctx, `SELECT count(*), count(DISTINCT (company_id, status)) FROM driver_counts WHERE company_id = ANY ($1)`,
		companies).Scan(&rows, &keys); err != nil {
		t.Fatal(err)
	}
	if rows != keys || rows >= before {
		t.Errorf("%d rows of counts for %d companies and statuses after compacting (%d before): want one each", rows, keys, before)
	}
}

// Writes of one company's drivers do not queue on the counts: a status
// change waits for no other open transaction that changed statuses too
// (with a kept row per status, the second would wait for the first's
// commit, and an import beside an edit could deadlock).
func TestDriverWritesDoNotWaitOnCounts(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	company := fixtures.Company(t, db)
	a := fixtures.Driver(t, db, company)
	b := fixtures.Driver(t, db, company)
	first, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Rollback(ctx)
	if _, err := first.Exec(ctx, `UPDATE drivers SET status = 'on_leave' WHERE id = $1`, a); err != nil {
		t.Fatal(err)
	}
	second, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Rollback(ctx)
	if _, err := second.Exec(ctx, `SET LOCAL lock_timeout = '2s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := second.Exec(ctx, `UPDATE drivers SET status = 'on_leave' WHERE id = $1`, b); err != nil {
		t.Fatalf("the second status change waited for the first: %v", err)
	}
	if err := second.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var onLeave int
	if err := db.QueryRow(ctx, `SELECT coalesce(sum(live), 0) FROM driver_counts WHERE company_id = $1 AND status = 'on_leave'`,
		company).Scan(&onLeave); err != nil {
		t.Fatal(err)
	}
	if onLeave != 2 {
		t.Errorf("driver_counts sums %d drivers on leave, want 2", onLeave)
	}
}
