package rating_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

var (
	jan = rating.MonthOf(2026, time.January)
	dec = rating.MonthOf(2025, time.December)
	ctx = context.Background()
)

// at is a time in Prague (the fixtures' company time zone).
func at(s string) time.Time {
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		panic(err)
	}
	t, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		panic(err)
	}
	return t
}

type snapshot struct {
	Total      string
	Percentile int
	Previous   *string
	Components map[string]rating.ComponentView
}

func readSnapshot(t *testing.T, db *pgxpool.Pool, driver uuid.UUID, p rating.Period) snapshot {
	t.Helper()
	var s snapshot
	err := db.QueryRow(ctx, `SELECT total_score::text, rank_percentile, previous_score::text, components
		FROM rating_snapshots WHERE driver_id = $1 AND rating_period = $2`, driver, p.First()).
		Scan(&s.Total, &s.Percentile, &s.Previous, &s.Components)
	if err != nil {
		t.Fatalf("snapshot of %s %s: %v", driver, p, err)
	}
	return s
}

func count(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func wantScore(t *testing.T, s snapshot, metric, want string) {
	t.Helper()
	c, ok := s.Components[metric]
	if !ok {
		t.Fatalf("%s missing from components %v", metric, s.Components)
	}
	if c.Score.String() != want {
		t.Errorf("%s: score %s, want %s (%s)", metric, c.Score, want, c.Details)
	}
}

// TestRateCompanyMonth rates one company's January from fixtures that
// touch every metric's edges and checks the stored snapshots, components
// and percentiles.
func TestRateCompanyMonth(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	svc := rating.NewService(db)

	// A: documents in every status as of 2026-01-31, two countable
	// penalties, a minimal profile, 4 orders, one late renewal.
	a := f.Driver()
	f.Document(a, "passport", "2026-01-05", at("2025-01-10 09:00"))                 // renewed below
	f.Document(a, "drivers_license", "2026-02-20", at("2024-05-01 09:00"))          // 20 days: warning
	f.Document(a, "tachograph_card", "2026-02-05", at("2024-05-01 09:00"))          // 5 days: expiring_soon
	f.Document(a, "code_95", "2026-01-30", at("2024-05-01 09:00"))                  // expired on the last day
	f.SetValidUntil(a, "medical_examination", "2027-01-01", at("2024-05-01 09:00")) // no file: no_data
	f.Document(a, "adr_certificate", "2020-01-01", at("2019-05-01 09:00"))          // not required
	f.Upload(a, "passport", "2026-03-31", at("2026-01-12 10:00"))                   // 7 days late
	f.Penalty(a, "2026-01-01", "1000.00", "pending", false)
	f.Penalty(a, "2026-01-31", "1500.00", "resolved", false)
	f.Penalty(a, "2026-01-15", "9000.00", "cancelled", false) // cancelled: left out
	f.Penalty(a, "2026-01-15", "9000.00", "pending", true)    // deleted: left out
	f.Penalty(a, "2025-12-31", "9000.00", "pending", false)   // another month
	f.Penalty(a, "2026-02-01", "9000.00", "pending", false)   // another month
	f.Orders(a, "2026-01-10", "completed", 4, false)
	f.Orders(a, "2026-01-11", "cancelled", 3, false)
	f.Orders(a, "2026-01-12", "completed", 3, true)
	f.Orders(a, "2026-02-01", "completed", 5, false)

	// B: a full profile and nothing else.
	b := f.Driver(func(d *fixtures.DriverSpec) {
		d.MiddleName, d.BirthDate, d.Citizenship, d.RodneCislo = fixtures.Text("Karel"), fixtures.Date("1980-01-01"), fixtures.Text("CZ"), fixtures.Text("800101/1234")
		d.Phone, d.RegistrationAddress, d.ResidenceAddress, d.HireDate = fixtures.Text("+420 123"), fixtures.Text("Praha"), fixtures.Text("Brno"), fixtures.Date("2020-01-01")
		d.ContractFrom, d.ContractIndefinite, d.WorkLocation, d.BankCountry = fixtures.Date("2020-01-01"), true, fixtures.Text("Praha"), fixtures.Text("CZ")
		d.BankAccount, d.IBAN, d.SWIFT = fixtures.Text("123/0100"), fixtures.Text("CZ6508000000192000145399"), fixtures.Text("GIBACZPX")
	})
	fixtures.Office(t, db, f.Company, "HQ")
	f.Exec(`UPDATE drivers SET office_id = (SELECT id FROM offices WHERE company_id = $1) WHERE id = $2`, f.Company, b)

	onLeave := f.Driver(fixtures.Status("on_leave"))
	deleted := f.Driver(fixtures.Deleted())

	n, err := svc.RateCompany(ctx, f.Company, jan)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("rated %d drivers, want 2 (the active ones)", n)
	}
	sa := readSnapshot(t, db, a, jan)
	wantScore(t, sa, rating.DocumentExpiration, "35.00")
	wantScore(t, sa, rating.PenaltiesCount, "60.00")
	wantScore(t, sa, rating.PenaltiesAmount, "75.00")
	wantScore(t, sa, rating.ProfileCompleteness, "20.00")
	wantScore(t, sa, rating.DocumentUploadTimeliness, "75.00")
	wantScore(t, sa, rating.Activity, "50.00")
	// 35×.3 + 60×.2 + 75×.2 + 20×.1 + 75×.1 + 50×.1 = 52
	if sa.Total != "52.00" {
		t.Errorf("A total %s, want 52.00", sa.Total)
	}
	if d := sa.Components[rating.DocumentExpiration].Details; d != "2 of 5 required documents expire within 30 days, 2 expired or missing (as of 2026-01-31)." {
		t.Errorf("details %q", d)
	}
	if d := sa.Components[rating.PenaltiesAmount].Details; !strings.Contains(d, "2500.00 CZK") {
		t.Errorf("details %q", d)
	}

	sb := readSnapshot(t, db, b, jan)
	wantScore(t, sb, rating.ProfileCompleteness, "100.00")
	wantScore(t, sb, rating.DocumentExpiration, "0.00")
	wantScore(t, sb, rating.Activity, "0.00")
	// 0×.3 + 100×.2 + 100×.2 + 100×.1 + 100×.1 + 0×.1 = 60
	if sb.Total != "60.00" {
		t.Errorf("B total %s, want 60.00", sb.Total)
	}
	if sa.Percentile != 50 || sb.Percentile != 100 {
		t.Errorf("percentiles A %d B %d, want 50 and 100", sa.Percentile, sb.Percentile)
	}
	if sa.Previous != nil {
		t.Errorf("previous score %v without a December snapshot", *sa.Previous)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots WHERE driver_id = ANY($1)`, []uuid.UUID{onLeave, deleted}); n != 0 {
		t.Errorf("%d snapshots of the on-leave and deleted drivers", n)
	}
	// The component rows mirror the snapshot's components.
	var raw, score, weight, contrib string
	var meta map[string]any
	err = db.QueryRow(ctx, `SELECT c.raw_value::text, c.normalized_score::text, c.weight::text, c.contribution::text, c.metadata
		FROM rating_components c JOIN rating_snapshots s ON s.id = c.snapshot_id
		WHERE s.driver_id = $1 AND s.rating_period = $2 AND c.metric_name = 'penalties_amount'`, a, jan.First()).
		Scan(&raw, &score, &weight, &contrib, &meta)
	if err != nil {
		t.Fatal(err)
	}
	if raw != "2500.0000" || score != "75.00" || weight != "20.00" || contrib != "15.0000" || !strings.Contains(meta["details"].(string), "2500.00") {
		t.Errorf("component row raw %s score %s weight %s contribution %s meta %v", raw, score, weight, contrib, meta)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_components`); n != 12 {
		t.Errorf("%d component rows, want 12", n)
	}
	if n := count(t, db, `SELECT drivers_rated FROM rating_runs WHERE company_id = $1 AND rating_period = $2`, f.Company, jan.First()); n != 2 {
		t.Errorf("rating run marks %d drivers", n)
	}

	// Running it again replaces, never duplicates.
	if _, err := svc.RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots`); n != 2 {
		t.Errorf("%d snapshots after a second run, want 2", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_components`); n != 12 {
		t.Errorf("%d component rows after a second run, want 12", n)
	}
}

// TestRerunWritesOnlyChangedComponents: a month rated again rewrites only
// the component rows whose values changed (docs/performance.md, "Rating a
// month"), yet every row ends up equal to the new result, and the rows of a
// metric disabled since are removed.
func TestRerunWritesOnlyChangedComponents(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	svc := rating.NewService(db)
	a := f.Driver()
	f.Driver()
	f.Penalty(a, "2026-01-10", "1000.00", "pending", false)

	// versions maps "driver/metric" to the row's version (xmin) and values.
	versions := func() map[string]string {
		t.Helper()
		rows, err := db.Query(ctx, `SELECT s.driver_id::text || '/' || c.metric_name, c.xmin::text,
				coalesce(c.raw_value::text, ''), c.normalized_score::text, c.metadata->>'details'
			FROM rating_components c JOIN rating_snapshots s ON s.id = c.snapshot_id
			WHERE s.company_id = $1 AND s.rating_period = $2`, f.Company, jan.First())
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var key, xmin, raw, score, details string
			if err := rows.Scan(&key, &xmin, &raw, &score, &details); err != nil {
				t.Fatal(err)
			}
			out[key] = xmin + " " + raw + " " + score + " " + details
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	rate := func() {
		t.Helper()
		if _, err := svc.RateCompany(ctx, f.Company, jan); err != nil {
			t.Fatal(err)
		}
	}

	rate()
	first := versions()
	if len(first) != 12 {
		t.Fatalf("%d component rows, want 12", len(first))
	}
	rate()
	if again := versions(); len(again) != 12 {
		t.Errorf("%d component rows after an unchanged run, want 12", len(again))
	} else {
		for k, v := range first {
			if again[k] != v {
				t.Errorf("%s rewritten by a run that changed nothing: %q, then %q", k, v, again[k])
			}
		}
	}

	// A second penalty of A: its two penalty rows change, nothing else.
	f.Penalty(a, "2026-01-20", "3000.00", "pending", false)
	rate()
	changed := versions()
	for k, v := range first {
		penalty := strings.HasPrefix(k, a.String()+"/penalties_")
		if (changed[k] != v) != penalty {
			t.Errorf("%s: %q, then %q (rewritten: %v, want %v)", k, v, changed[k], changed[k] != v, penalty)
		}
	}
	sa := readSnapshot(t, db, a, jan)
	for _, m := range []string{rating.PenaltiesCount, rating.PenaltiesAmount} {
		row := strings.SplitN(changed[a.String()+"/"+m], " ", 4)
		if row[2] != sa.Components[m].Score.String() || row[3] != sa.Components[m].Details {
			t.Errorf("%s row score %s %q, snapshot %s %q", m, row[2], row[3], sa.Components[m].Score, sa.Components[m].Details)
		}
	}
	if raw := strings.SplitN(changed[a.String()+"/"+rating.PenaltiesAmount], " ", 4)[1]; raw != "4000.0000" {
		t.Errorf("penalties_amount raw value %s, want 4000.0000", raw)
	}

	// Activity disabled: its rows go, the others stay.
	f.Exec(`UPDATE rating_configs SET is_enabled = false WHERE company_id = $1 AND metric_name = 'activity'`, f.Company)
	rate()
	last := versions()
	if len(last) != 10 {
		t.Errorf("%d component rows with activity disabled, want 10", len(last))
	}
	for k := range last {
		if strings.HasSuffix(k, "/activity") {
			t.Errorf("%s kept after activity was disabled", k)
		}
	}

	// A driver new to the stored month: its snapshot is inserted with its
	// rows, beside the others' updates, which rewrite none of their rows.
	c := f.Driver()
	f.Penalty(c, "2026-01-15", "500.00", "pending", false)
	rate()
	withNew := versions()
	if len(withNew) != 15 {
		t.Errorf("%d component rows with a third driver, want 15", len(withNew))
	}
	for k, v := range last {
		if withNew[k] != v {
			t.Errorf("%s rewritten when a driver was added: %q, then %q", k, v, withNew[k])
		}
	}
	sc := readSnapshot(t, db, c, jan)
	if len(sc.Components) != 5 {
		t.Errorf("the new driver's snapshot has %d components, want 5", len(sc.Components))
	}
	for m, comp := range sc.Components {
		row := strings.SplitN(withNew[c.String()+"/"+m], " ", 4)
		if len(row) != 4 || row[2] != comp.Score.String() || row[3] != comp.Details {
			t.Errorf("the new driver's %s row %q, snapshot %s %q", m, row, comp.Score, comp.Details)
		}
	}
}

// TestProfileFieldsMatchTheList: the SQL's 20 fields are ProfileFields.
func TestProfileFieldsMatchTheList(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	fixtures.Office(t, db, f.Company, "HQ")
	full := f.Driver(func(d *fixtures.DriverSpec) {
		d.MiddleName, d.BirthDate, d.Citizenship, d.RodneCislo = fixtures.Text("K"), fixtures.Date("1980-01-01"), fixtures.Text("CZ"), fixtures.Text("1")
		d.Phone, d.RegistrationAddress, d.ResidenceAddress, d.HireDate = fixtures.Text("1"), fixtures.Text("a"), fixtures.Text("b"), fixtures.Date("2020-01-01")
		d.ContractFrom, d.ContractTo, d.WorkLocation, d.BankCountry = fixtures.Date("2020-01-01"), fixtures.Date("2030-01-01"), fixtures.Text("x"), fixtures.Text("CZ")
		d.BankAccount, d.IBAN, d.SWIFT = fixtures.Text("1"), fixtures.Text("CZ65"), fixtures.Text("GIBACZPX")
	})
	f.Exec(`UPDATE drivers SET office_id = (SELECT id FROM offices WHERE company_id = $1) WHERE id = $2`, f.Company, full)
	blank := f.Driver(func(d *fixtures.DriverSpec) {
		d.MiddleName, d.Phone, d.ContractIndefinite = fixtures.Text("  "), fixtures.Text(""), false
	})
	if _, err := rating.NewService(db).RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := db.QueryRow(ctx, `SELECT c.metadata FROM rating_components c JOIN rating_snapshots s ON s.id = c.snapshot_id
		WHERE s.driver_id = $1 AND c.metric_name = 'profile_completeness'`, full).Scan(&meta); err != nil {
		t.Fatal(err)
	}
	if meta["filled"] != float64(20) || len(meta["missing_fields"].([]any)) != 0 {
		t.Errorf("full profile: %v", meta)
	}
	if err := db.QueryRow(ctx, `SELECT c.metadata FROM rating_components c JOIN rating_snapshots s ON s.id = c.snapshot_id
		WHERE s.driver_id = $1 AND c.metric_name = 'profile_completeness'`, blank).Scan(&meta); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, m := range meta["missing_fields"].([]any) {
		missing = append(missing, m.(string))
	}
	sort.Strings(missing)
	want := []string{"bank_account", "bank_country", "birth_date", "citizenship", "contract_from", "contract_to", "hire_date",
		"iban", "middle_name", "office_id", "phone", "registration_address", "residence_address", "rodne_cislo", "swift", "work_location"}
	if strings.Join(missing, ",") != strings.Join(want, ",") {
		t.Errorf("blank profile misses %v, want %v", missing, want)
	}
}

// TestUploadTimeliness covers how renewals are recognised.
func TestUploadTimeliness(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	svc := rating.NewService(db)
	timeliness := func(d uuid.UUID) rating.ComponentView {
		return readSnapshot(t, db, d, jan).Components[rating.DocumentUploadTimeliness]
	}

	first := f.Driver() // a first upload renews nothing
	f.Upload(first, "passport", "2026-01-01", at("2026-01-20 10:00"))

	early := f.Driver() // renewed 10 days before expiry (warning): 0 days late
	f.Upload(early, "passport", "2026-01-25", at("2025-01-01 10:00"))
	f.Upload(early, "passport", "2031-01-25", at("2026-01-15 10:00"))

	late := f.Driver() // new file first, valid_until corrected a day later: 14 days late
	f.Upload(late, "visa_biometrics", "2026-01-01", at("2025-01-01 10:00"))
	f.Upload(late, "visa_biometrics", "", at("2026-01-15 10:00"))
	f.SetValidUntil(late, "visa_biometrics", "2027-01-01", at("2026-01-16 08:00"))

	unchanged := f.Driver() // a new scan without a new date: late by the current valid_until
	f.Upload(unchanged, "code_95", "2026-01-03", at("2025-01-01 10:00"))
	f.Upload(unchanged, "code_95", "", at("2026-01-10 10:00"))

	valid := f.Driver() // a valid document replaced early is no renewal
	f.Upload(valid, "passport", "2026-06-01", at("2025-01-01 10:00"))
	f.Upload(valid, "passport", "2030-06-01", at("2026-01-10 10:00"))

	midnight := f.Driver() // 23:30 UTC on 31 January is February in Prague
	f.Upload(midnight, "passport", "2026-01-10", at("2025-01-01 10:00"))
	f.Upload(midnight, "passport", "2030-01-10", time.Date(2026, 1, 31, 23, 30, 0, 0, time.UTC))

	if _, err := svc.RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		driver uuid.UUID
		score  string
		raw    string
	}{
		{"first upload", first, "100.00", ""},
		{"renewed early", early, "100.00", "0"},
		{"late, date corrected later", late, "50.00", "14"},
		{"new scan of an expired document", unchanged, "75.00", "7"},
		{"valid document replaced", valid, "100.00", ""},
		{"uploaded in February local time", midnight, "100.00", ""},
	} {
		c := timeliness(tt.driver)
		if c.Score.String() != tt.score {
			t.Errorf("%s: score %s, want %s (%s)", tt.name, c.Score, tt.score, c.Details)
		}
		got := ""
		if c.RawValue != nil {
			got = c.RawValue.String()
		}
		if got != tt.raw {
			t.Errorf("%s: raw %q, want %q", tt.name, got, tt.raw)
		}
	}
	if _, err := svc.RateCompany(ctx, f.Company, rating.MonthOf(2026, time.February)); err != nil {
		t.Fatal(err)
	}
	// February: uploaded on 1 February, 22 days after 2026-01-10: 100 × (1 − 22/28).
	if c := readSnapshot(t, db, midnight, rating.MonthOf(2026, time.February)).Components[rating.DocumentUploadTimeliness]; c.Score.String() != "21.43" {
		t.Errorf("February renewal: %s (%s)", c.Score, c.Details)
	}
}

// TestActivityNotApplicable: without company orders in the month the
// activity component says so and the total leaves it out.
func TestActivityNotApplicable(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	d := f.Driver()
	other := f.Driver()
	f.Orders(other, "2026-02-03", "completed", 5, false) // another month
	f.Orders(other, "2026-01-03", "cancelled", 5, false) // cancelled orders do not count
	f.Exec(`INSERT INTO document_rules (company_id, document_type, required, lead_days)
		SELECT $1, document_type, document_type = 'passport', lead_days FROM konvoj_document_rules($1)`, f.Company)
	f.Document(d, "passport", "", at("2025-01-01 10:00"))
	if _, err := rating.NewService(db).RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	s := readSnapshot(t, db, d, jan)
	act := s.Components[rating.Activity]
	if act.Applicable || act.Score.String() != "0.00" || act.Contribution.String() != "0" || !strings.HasPrefix(act.Details, "Not applicable") {
		t.Errorf("activity %+v", act)
	}
	// One required document, valid without expiry: 100; profile 4/20 = 20.
	// (100×.3 + 100×.2 + 100×.2 + 20×.1 + 100×.1) × 100 / 90 = 91.11
	wantScore(t, s, rating.DocumentExpiration, "100.00")
	if s.Total != "91.11" {
		t.Errorf("total %s, want 91.11", s.Total)
	}
}

// TestPercentilesWithTies: rank_percentile = ceil(100 × drivers with a
// score ≤ this / drivers rated), ties sharing the higher rank.
func TestPercentilesWithTies(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	penalties := []int{5, 5, 5, 4, 3, 2, 1, 0, 0, 0}
	want := []int{30, 30, 30, 40, 50, 60, 70, 100, 100, 100}
	var ids []uuid.UUID
	for _, n := range penalties {
		d := f.Driver()
		for i := 0; i < n; i++ {
			f.Penalty(d, "2026-01-10", "10.00", "pending", false)
		}
		ids = append(ids, d)
	}
	svc := rating.NewService(db)
	if _, err := svc.RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	for i, d := range ids {
		if got := readSnapshot(t, db, d, jan).Percentile; got != want[i] {
			t.Errorf("driver with %d penalties: percentile %d, want %d", penalties[i], got, want[i])
		}
	}
	// Three drivers: ceil(100/3) = 34, not 33.
	g := ratingtest.New(t, db)
	var three []uuid.UUID
	for i := 0; i < 3; i++ {
		d := g.Driver()
		for j := 0; j < i; j++ {
			g.Penalty(d, "2026-01-10", "10.00", "pending", false)
		}
		three = append(three, d)
	}
	if _, err := svc.RateCompany(ctx, g.Company, jan); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{100, 67, 34} {
		if got := readSnapshot(t, db, three[i], jan).Percentile; got != want {
			t.Errorf("of three, driver %d: percentile %d, want %d", i, got, want)
		}
	}
	// The other company's month is ranked on its own.
	if got := readSnapshot(t, db, ids[0], jan).Percentile; got != 30 {
		t.Errorf("percentile changed by another company's run: %d", got)
	}
}

// TestPreviousScore: previous_score is the previous month's total, and
// recalculating a month updates the next month's previous_score.
func TestPreviousScore(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	d := f.Driver()
	svc := rating.NewService(db)
	if _, err := svc.RateCompany(ctx, f.Company, dec); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	decTotal := readSnapshot(t, db, d, dec).Total
	if p := readSnapshot(t, db, d, jan).Previous; p == nil || *p != decTotal {
		t.Fatalf("January previous_score %v, want %s", p, decTotal)
	}
	f.Penalty(d, "2025-12-05", "10.00", "pending", false)
	if _, err := svc.RateCompany(ctx, f.Company, dec); err != nil {
		t.Fatal(err)
	}
	newDec := readSnapshot(t, db, d, dec).Total
	if newDec == decTotal {
		t.Fatalf("the December penalty did not change the score (%s)", newDec)
	}
	if p := readSnapshot(t, db, d, jan).Previous; p == nil || *p != newDec {
		t.Errorf("January previous_score %v after recalculating December, want %s", p, newDec)
	}
}

// TestDueMonths: the month just ended is due once per company, until rated.
func TestDueMonths(t *testing.T) {
	db := pgtest.New(t)
	fresh := ratingtest.New(t, db) // created this month: nothing due
	old := ratingtest.New(t, db)
	old.Exec(`UPDATE companies SET created_at = now() - interval '3 months' WHERE id = $1`, old.Company)
	svc := rating.NewService(db)
	due, err := svc.DueMonths(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("Europe/Prague")
	last := rating.CurrentPeriod(loc, time.Now()).Prev()
	if len(due) != 1 || due[0].CompanyID != old.Company || due[0].Period != last {
		t.Fatalf("due %+v, want %s for %s only (not %s)", due, last, old.Company, fresh.Company)
	}
	if _, err := svc.RateCompany(ctx, old.Company, last); err != nil {
		t.Fatal(err)
	}
	if due, _ := svc.DueMonths(ctx); len(due) != 0 {
		t.Errorf("still due after rating: %+v", due)
	}
}

func TestComponentJSON(t *testing.T) {
	// Scores are JSON numbers with two decimals.
	b, _ := json.Marshal(rating.ComponentView{Score: "87.50", Weight: "30", Contribution: "26.25"})
	if !strings.Contains(string(b), `"score":87.50`) {
		t.Errorf("%s", b)
	}
}
