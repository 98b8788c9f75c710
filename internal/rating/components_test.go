package rating_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// TestComponentRowsKeepTheirSnapshot checks the statement-level checks that
// stand for the component rows' foreign key on their snapshot (migration
// 00038): no row without its snapshot, by insert or update, the statement
// failing as a whole with the foreign key's error; a snapshot's rows go with
// it; a snapshot cannot be deleted under a row another transaction is
// adding to it; a snapshot's id cannot change.
func TestComponentRowsKeepTheirSnapshot(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	svc := rating.NewService(db)
	a, b, c := f.Driver(), f.Driver(), f.Driver()
	for _, d := range []uuid.UUID{a, b, c} {
		if err := svc.RecalculateForBench(ctx, f.Company, jan, d); err != nil {
			t.Fatal(err)
		}
	}
	snapshotOf := func(driver uuid.UUID) uuid.UUID {
		var id uuid.UUID
		if err := db.QueryRow(ctx, `SELECT id FROM rating_snapshots WHERE driver_id = $1 AND rating_period = $2`,
			driver, jan.First()).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	rowsOf := func(snapshot uuid.UUID) int {
		return count(t, db, `SELECT count(*) FROM rating_components WHERE snapshot_id = $1`, snapshot)
	}
	sa, sb, sc := snapshotOf(a), snapshotOf(b), snapshotOf(c)
	if rowsOf(sa) == 0 || rowsOf(sb) == 0 || rowsOf(sc) == 0 {
		t.Fatal("the recalculations wrote no component rows")
	}
	isForeignKeyError := func(what string, err error) {
		t.Helper()
		var pg *pgconn.PgError
		if !errors.As(err, &pg) || pg.Code != "23503" || pg.ConstraintName != "rating_components_snapshot_id_fkey" {
			t.Errorf("%s: %v, want the foreign key's error", what, err)
		}
	}
	total := func() int { return count(t, db, `SELECT count(*) FROM rating_components`) }
	before := total()

	// A row of a snapshot that does not exist, alone and beside a good one.
	missing := uuid.New()
	_, err := db.Exec(ctx, `INSERT INTO rating_components (snapshot_id, metric_name) VALUES ($1, 'activity')`, missing)
	isForeignKeyError("insert without a snapshot", err)
	if _, err := db.Exec(ctx, `DELETE FROM rating_components WHERE snapshot_id = $1 AND metric_name = 'activity'`, sa); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(ctx, `INSERT INTO rating_components (snapshot_id, metric_name) VALUES ($1, 'activity'), ($2, 'activity')`, sa, missing)
	isForeignKeyError("insert with one row without a snapshot", err)
	if n := total(); n != before-1 {
		t.Errorf("%d component rows after the failed inserts, want %d: the good row must not stay", n, before-1)
	}
	if _, err := db.Exec(ctx, `INSERT INTO rating_components (snapshot_id, metric_name) VALUES ($1, 'activity')`, sa); err != nil {
		t.Fatalf("insert with its snapshot: %v", err)
	}

	// Moving a row to a missing snapshot fails; other updates do not.
	_, err = db.Exec(ctx, `UPDATE rating_components SET snapshot_id = $2 WHERE snapshot_id = $1 AND metric_name = 'activity'`, sa, missing)
	isForeignKeyError("update to a missing snapshot", err)
	if _, err := db.Exec(ctx, `UPDATE rating_components SET weight = weight WHERE snapshot_id = $1`, sa); err != nil {
		t.Errorf("update of other columns: %v", err)
	}
	if _, err := db.Exec(ctx, `UPDATE rating_snapshots SET id = $2 WHERE id = $1`, sa, uuid.New()); err == nil {
		t.Error("a snapshot's id changed")
	}

	// Deleting a snapshot deletes its rows, and only its.
	nb, nc := rowsOf(sb), rowsOf(sc)
	if _, err := db.Exec(ctx, `DELETE FROM rating_snapshots WHERE id = $1`, sb); err != nil {
		t.Fatal(err)
	}
	if rowsOf(sb) != 0 || rowsOf(sc) != nc || total() != before-nb {
		t.Errorf("after deleting a snapshot: its rows %d (want 0), another's %d (want %d)", rowsOf(sb), rowsOf(sc), nc)
	}

	// A snapshot being given a row by another transaction is deleted only
	// after that transaction ends, and then with the row.
	if _, err := db.Exec(ctx, `DELETE FROM rating_components WHERE snapshot_id = $1 AND metric_name = 'activity'`, sc); err != nil {
		t.Fatal(err)
	}
	adding, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer adding.Rollback(ctx)
	if _, err := adding.Exec(ctx, `INSERT INTO rating_components (snapshot_id, metric_name) VALUES ($1, 'activity')`, sc); err != nil {
		t.Fatal(err)
	}
	deleted := make(chan error, 1)
	go func() {
		_, err := db.Exec(ctx, `DELETE FROM rating_snapshots WHERE id = $1`, sc)
		deleted <- err
	}()
	if !waitsForLock(t, db, deleted) {
		t.Fatal("the snapshot's delete did not wait for the transaction adding a row to it")
	}
	if err := adding.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if n := rowsOf(sc); n != 0 {
		t.Errorf("%d rows of the deleted snapshot left", n)
	}
}

// waitsForLock reports whether a statement of another session is waiting
// for a lock before done receives its end (within 10 s).
func waitsForLock(t *testing.T, db *pgxpool.Pool, done chan error) bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			done <- err
			return false
		default:
		}
		if count(t, db, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM rating_snapshots%'`) > 0 {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
