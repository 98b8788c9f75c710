package rating_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// statements records every SQL statement a pool runs, those of batches
// included (the reads send theirs in batches).
type statements struct {
	mu  sync.Mutex
	sql []string
}

func (s *statements) add(sql string) {
	s.mu.Lock()
	s.sql = append(s.sql, sql)
	s.mu.Unlock()
}

func (s *statements) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	s.add(d.SQL)
	return ctx
}

func (s *statements) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (s *statements) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (s *statements) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	s.add(d.SQL)
}

func (s *statements) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func (s *statements) reset() {
	s.mu.Lock()
	s.sql = nil
	s.mu.Unlock()
}

// writing matches a statement that writes or locks.
var writing = regexp.MustCompile(`(?i)\b(insert|update|delete|copy|merge|lock|share)\b|advisory|_lock\b`)

func (s *statements) writes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, q := range s.sql {
		if writing.MatchString(q) {
			out = append(out, q)
		}
	}
	return out
}

// readOnlyPool opens a pool on the test database whose every transaction is
// READ ONLY (default_transaction_read_only): a statement that writes fails.
func readOnlyPool(t *testing.T, url string, tracer pgx.QueryTracer) *pgxpool.Pool {
	t.Helper()
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	pool, err := postgres.OpenSystem(ctx, url+sep+"default_transaction_read_only=on", tracer)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	var ro string
	if err := pool.QueryRow(ctx, `SHOW transaction_read_only`).Scan(&ro); err != nil || ro != "on" {
		t.Fatalf("read-only pool: transaction_read_only %q (%v)", ro, err)
	}
	return pool
}

// thisMonth is the current month in Prague (the fixtures' time zone) and a
// day of it as YYYY-MM-DD.
func thisMonth() (rating.Period, string) {
	p := rating.CurrentPeriod(at("2026-01-01 00:00").Location(), time.Now())
	return p, p.First().String()
}

func hrOf(company uuid.UUID) auth.Principal {
	return auth.Principal{CompanyID: company, Role: auth.RoleHRManager, CompanyTimezone: "Europe/Prague"}
}

// ratingTables is the row count and the newest row version of every table
// the rating writes.
func ratingTables(t *testing.T, db *pgxpool.Pool) string {
	t.Helper()
	var out []string
	for _, table := range []string{"rating_snapshots", "rating_components", "rating_runs", "rating_refresh_due"} {
		var s string
		if err := db.QueryRow(ctx, `SELECT count(*) || '/' || coalesce(max(xmin::text::bigint), 0) FROM `+table).Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, table+" "+s)
	}
	return strings.Join(out, ", ")
}

// TestCurrentMonthReadWritesNothing: the current month's read (and every
// other read of the rating) runs on a pool whose transactions are READ
// ONLY, issues no statement that writes or locks, leaves every rating table
// as it was and holds no advisory lock afterwards.
func TestCurrentMonthReadWritesNothing(t *testing.T) {
	db, url := pgtest.NewWithURL(t, nil)
	f := ratingtest.New(t, db)
	month, day := thisMonth()
	a, b := f.Driver(), f.Driver()
	f.Penalty(a, day, "100.00", "pending", false)
	if _, _, err := rating.NewService(db).RefreshCurrentMonth(ctx, f.Company); err != nil {
		t.Fatal(err)
	}
	f.Penalty(b, day, "300.00", "pending", false) // not in the stored snapshots yet
	before := ratingTables(t, db)

	trace := &statements{}
	ro := readOnlyPool(t, url, trace)
	svc := rating.NewService(ro)
	p := hrOf(f.Company)
	for _, id := range []uuid.UUID{a, b} {
		trace.reset()
		past := month.Prev()
		// The driver's lookup and the reads in one batch.
		if _, err := svc.Read(ctx, p, id, nil, nil); err != nil {
			t.Fatalf("current month read on a read-only pool: %v", err)
		}
		if _, err := svc.Read(ctx, p, id, &past, nil); err != nil {
			t.Fatalf("past month read (no snapshot) on a read-only pool: %v", err)
		}
		// The driver's page: the rating, its history and its inputs.
		if _, err := svc.Sheet(ctx, p, id, func(r *rating.SheetRequest) error {
			*r = rating.SheetRequest{Month: past, From: past.First().AddMonths(-11), To: past.Last(), Months: 12, Inputs: true}
			return nil
		}); err != nil {
			t.Fatalf("the rating page's reads on a read-only pool: %v", err)
		}
		if _, err := svc.History(ctx, p, id, func(f *rating.HistoryFilter) error {
			*f = rating.HistoryFilter{Page: paging.Request{Number: 1, Size: 12}}
			return nil
		}); err != nil {
			t.Fatalf("history on a read-only pool: %v", err)
		}
		if w := trace.writes(); len(w) > 0 {
			t.Errorf("reads issued writing or locking statements:\n%s", strings.Join(w, "\n---\n"))
		}
	}
	trace.reset()
	if _, err := svc.Ranking(ctx, p, func(f *rating.RankingFilter) error {
		*f = rating.RankingFilter{Page: paging.Request{Number: 1, Size: 100}}
		return nil
	}); err != nil {
		t.Fatalf("ranking on a read-only pool: %v", err)
	}
	if w := trace.writes(); len(w) > 0 {
		t.Errorf("ranking issued writing or locking statements:\n%s", strings.Join(w, "\n---\n"))
	}
	if after := ratingTables(t, db); after != before {
		t.Errorf("rating tables changed by reads:\nbefore %s\nafter  %s", before, after)
	}
	if n := count(t, db, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND a.datname = current_database()`); n != 0 {
		t.Errorf("%d advisory locks held after the reads", n)
	}
}

// TestReadsDoNotWaitForRecalculation: while a recalculation holds the
// month's lock (and another waits for it), two concurrent reads of the
// current month complete; the recalculation then stores the total the
// reads computed and the percentile they placed it at.
func TestReadsDoNotWaitForRecalculation(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	month, day := thisMonth()
	ids := []uuid.UUID{f.Driver(), f.Driver(), f.Driver()}
	f.Penalty(ids[0], day, "900.00", "pending", false)
	f.Penalty(ids[1], day, "100.00", "pending", false)
	f.Orders(ids[2], day, "completed", 3, false)
	svc := rating.NewService(db)
	if _, _, err := svc.RefreshCurrentMonth(ctx, f.Company); err != nil {
		t.Fatal(err)
	}
	f.Penalty(ids[0], day, "500.00", "pending", false) // changes driver 0's score after the refresh
	p := hrOf(f.Company)

	holder, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Rollback(ctx) //nolint:errcheck
	if err := rating.LockMonthForTest(ctx, holder, f.Company, month); err != nil {
		t.Fatal(err)
	}
	recalculated := make(chan rating.Recalculated, 1)
	recalcErr := make(chan error, 1)
	go func() {
		r, err := svc.Recalculate(ctx, p, ids[0], func(*rating.RecalculateInput) error { return nil })
		recalculated <- r
		recalcErr <- err
	}()

	readCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	reads := make([]rating.Rating, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range reads {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			reads[i], errs[i] = svc.Read(readCtx, p, ids[0], nil, nil)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("read %d while the month is locked: %v", i, err)
		}
	}
	select {
	case <-recalculated:
		t.Fatal("the recalculation finished while the month's lock was held")
	default:
	}
	if reads[0].TotalScore != reads[1].TotalScore {
		t.Errorf("two reads: %s and %s", reads[0].TotalScore, reads[1].TotalScore)
	}
	if err := holder.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	r := <-recalculated
	if err := <-recalcErr; err != nil {
		t.Fatal(err)
	}
	if r.TotalScore != reads[0].TotalScore {
		t.Errorf("recalculation stored %s, the read computed %s", r.TotalScore, reads[0].TotalScore)
	}
	stored := readSnapshot(t, db, ids[0], month)
	if stored.Total != reads[0].TotalScore.String() || stored.Percentile != reads[0].RankPercentile {
		t.Errorf("stored %s at %d, read %s at %d", stored.Total, stored.Percentile, reads[0].TotalScore, reads[0].RankPercentile)
	}
}

// TestLiveReadEqualsStoredSnapshot: for drivers touching every metric, the
// read's total, components, percentile and previous score are what a
// recalculation of the whole company then stores.
func TestLiveReadEqualsStoredSnapshot(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	month, day := thisMonth()
	now := time.Now()
	var ids []uuid.UUID
	for i := 0; i < 5; i++ {
		ids = append(ids, f.Driver())
	}
	f.Penalty(ids[0], day, "2500.00", "pending", false)
	f.Penalty(ids[0], day, "100.00", "cancelled", false)
	f.Penalty(ids[1], day, "100.00", "pending", false)
	f.Orders(ids[1], day, "completed", 4, false)
	f.Orders(ids[2], day, "completed", 30, false)
	f.Document(ids[3], "passport", month.Last().AddDays(400).String(), now.Add(-time.Hour))
	f.Document(ids[3], "drivers_license", month.Last().AddDays(10).String(), now.Add(-time.Hour))
	f.Document(ids[4], "passport", month.Last().AddDays(-5).String(), now.Add(-time.Hour))
	// A renewal this month, 3 days after the previous file expired (the
	// live read takes its renewals from a statement of their own).
	f.Upload(ids[2], "code_95", now.AddDate(0, 0, -3).UTC().Format(time.DateOnly), now.AddDate(-1, 0, 0))
	f.Upload(ids[2], "code_95", now.AddDate(2, 0, 0).UTC().Format(time.DateOnly), now.Add(-time.Minute))
	svc := rating.NewService(db)
	// Last month stored for two drivers: previous_score and score_change.
	for _, id := range ids[:2] {
		if err := svc.RecalculateForBench(ctx, f.Company, month.Prev(), id); err != nil {
			t.Fatal(err)
		}
	}
	p := hrOf(f.Company)
	live := map[uuid.UUID]rating.Rating{}
	for _, id := range ids {
		r, err := svc.Read(ctx, p, id, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.RankPercentile != 100 {
			t.Errorf("driver %d: rank_percentile %d with no stored snapshot, want 100", len(live), r.RankPercentile)
		}
		live[id] = r
	}
	if _, _, err := svc.RefreshCurrentMonth(ctx, f.Company); err != nil {
		t.Fatal(err)
	}
	if c := readSnapshot(t, db, ids[2], month).Components[rating.DocumentUploadTimeliness]; c.RawValue == nil || c.RawValue.String() != "3" {
		t.Errorf("the renewal: raw value %v, want 3 days (%s)", c.RawValue, c.Details)
	}
	for i, id := range ids {
		stored := readSnapshot(t, db, id, month)
		r := live[id]
		if r.TotalScore.String() != stored.Total {
			t.Errorf("driver %d: read %s, stored %s", i, r.TotalScore, stored.Total)
		}
		a, _ := json.Marshal(r.Components)
		b, _ := json.Marshal(stored.Components)
		if string(a) != string(b) {
			t.Errorf("driver %d components:\nread   %s\nstored %s", i, a, b)
		}
		if (r.PreviousScore == nil) != (stored.Previous == nil) || r.PreviousScore != nil && r.PreviousScore.String() != *stored.Previous {
			t.Errorf("driver %d previous_score: read %v, stored %v", i, r.PreviousScore, stored.Previous)
		}
		// Read again: now ranked among the stored snapshots of the others,
		// as the stored percentile ranks it.
		again, err := svc.Read(ctx, p, id, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if again.RankPercentile != stored.Percentile {
			t.Errorf("driver %d: read rank %d, stored %d", i, again.RankPercentile, stored.Percentile)
		}
	}
}

// TestPercentileAgainstStoredSnapshots: a driver whose data changed since
// the stored snapshots is ranked with its live score among the others'
// stored scores; the stored ones do not move.
func TestPercentileAgainstStoredSnapshots(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	month, day := thisMonth()
	var ids []uuid.UUID
	for i := 0; i < 4; i++ {
		ids = append(ids, f.Driver())
		for j := 0; j < i; j++ {
			f.Penalty(ids[i], day, "100.00", "pending", false) // 0, 1, 2, 3 penalties: best to worst
		}
	}
	svc := rating.NewService(db)
	if _, _, err := svc.RefreshCurrentMonth(ctx, f.Company); err != nil {
		t.Fatal(err)
	}
	p := hrOf(f.Company)
	read := func(id uuid.UUID) rating.Rating {
		t.Helper()
		r, err := svc.Read(ctx, p, id, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Stored: best 100, then 75, 50, worst 25.
	for i, want := range []int{100, 75, 50, 25} {
		if got := read(ids[i]).RankPercentile; got != want {
			t.Errorf("driver %d: rank %d, want %d", i, got, want)
		}
	}
	// The best driver gets 5 penalties: live below every stored other, so
	// 1 of 4 at or below it: 25; the worst stored one still reads 25 (its
	// own stored row is not counted, the best one's stored row still is).
	for j := 0; j < 5; j++ {
		f.Penalty(ids[0], day, "100.00", "pending", false)
	}
	if got := read(ids[0]).RankPercentile; got != 25 {
		t.Errorf("changed driver: rank %d, want 25", got)
	}
	if got := read(ids[3]).RankPercentile; got != 25 {
		t.Errorf("worst driver: rank %d, want 25", got)
	}
	if s := readSnapshot(t, db, ids[0], month); s.Percentile != 100 {
		t.Errorf("stored rank of the changed driver %d, want 100 until the refresh", s.Percentile)
	}
	// A deleted driver's stored snapshot is left out: 3 rated, the worst
	// stored one (ids[3]) at 1 of 3 → 34.
	f.Exec(`UPDATE drivers SET deleted_at = now() WHERE id = $1`, ids[0])
	if got := read(ids[3]).RankPercentile; got != 34 {
		t.Errorf("worst driver with the changed one deleted: rank %d, want 34", got)
	}
}
