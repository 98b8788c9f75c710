package alerts_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

var ctx = context.Background()

const base = "https://konvoj.example"

func day(s string) civil.Date {
	d, err := civil.Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}

// user inserts a user of the company.
func user(t *testing.T, db *pgxpool.Pool, company uuid.UUID, role, email, lang string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if _, err := db.Exec(ctx, `INSERT INTO users (id, company_id, external_id, email, role, preferred_language)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''))`, id, company, id.String(), email, role, lang); err != nil {
		t.Fatal(err)
	}
	return id
}

func count(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// stages lists the new alerts as "type:stage", sorted.
func stages(res alerts.Result) []string {
	var out []string
	for _, a := range res.Alerts {
		out = append(out, a.DocumentType+":"+a.Stage)
	}
	sort.Strings(out)
	return out
}

func scan(t *testing.T, s *alerts.Scanner, company uuid.UUID, date string) alerts.Result {
	t.Helper()
	res, err := s.Scan(ctx, company, day(date), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// setup: a company with an admin, an HR manager (Czech), a dispatcher, and
// one driver (with a Polish-speaking user) whose required documents are
// valid without expiry except the passport, valid until 2026-06-30.
type setup struct {
	db      *pgxpool.Pool
	f       *ratingtest.Fixtures
	s       *alerts.Scanner
	driver  uuid.UUID
	admin   uuid.UUID
	hr      uuid.UUID
	drvUser uuid.UUID
}

func newSetup(t *testing.T) setup {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	st := setup{db: db, f: f, s: alerts.NewScanner(db, base)}
	st.driver = f.Driver(fixtures.Name("Jan", "Novák"), fixtures.Email("jan@example.test"))
	for _, typ := range []string{"drivers_license", "tachograph_card", "code_95", "medical_examination"} {
		f.Document(st.driver, typ, "", time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC))
	}
	f.Document(st.driver, "passport", "2026-06-30", time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC))
	st.admin = user(t, db, f.Company, "admin", "admin@example.test", "en")
	st.hr = user(t, db, f.Company, "hr_manager", "hr@example.test", "cs")
	user(t, db, f.Company, "dispatcher", "disp@example.test", "en")
	st.drvUser = user(t, db, f.Company, "driver", "JAN@example.test", "pl")
	return st
}

// TestStagesOnceEach: the passport (lead 90 days) crosses each boundary
// exactly once; the days between and re-runs add nothing.
func TestStagesOnceEach(t *testing.T) {
	st := newSetup(t)
	for _, tc := range []struct {
		date string
		want string
	}{
		{"2026-03-31", ""},                       // 91 days left: before the lead window
		{"2026-04-01", "passport:lead"},          // 90 days left
		{"2026-04-02", ""},                       // still lead, already recorded
		{"2026-06-15", ""},                       // 15 days left: still lead
		{"2026-06-16", "passport:expiring_soon"}, // 14 days left
		{"2026-06-30", ""},                       // last valid day
		{"2026-07-01", "passport:expired"},
		{"2026-07-02", ""},
	} {
		res := scan(t, st.s, st.f.Company, tc.date)
		got := strings.Join(stages(res), ",")
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.date, got, tc.want)
		}
		if again := scan(t, st.s, st.f.Company, tc.date); !again.AlreadyRun || len(again.Alerts) != 0 {
			t.Errorf("%s re-run: %+v", tc.date, again)
		}
	}
	if n := count(t, st.db, `SELECT count(*) FROM document_alerts WHERE company_id = $1`, st.f.Company); n != 3 {
		t.Errorf("%d alerts recorded, want 3", n)
	}
	// Each alert: a notification for the admin, the HR manager and the
	// driver's user (not the dispatcher); one e-mail each per day.
	if n := count(t, st.db, `SELECT count(*) FROM notifications`); n != 9 {
		t.Errorf("%d notifications, want 9", n)
	}
	if n := count(t, st.db, `SELECT count(*) FROM outbox`); n != 9 {
		t.Errorf("%d e-mails, want 9 (3 days × admin, HR, driver)", n)
	}
}

// TestNewUploadResetsStages: a new version goes through the stages again.
func TestNewUploadResetsStages(t *testing.T) {
	st := newSetup(t)
	if got := stages(scan(t, st.s, st.f.Company, "2026-07-01")); strings.Join(got, ",") != "passport:expired" {
		t.Fatalf("first scan: %v", got)
	}
	st.f.Upload(st.driver, "passport", "2026-09-15", time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC))
	if got := stages(scan(t, st.s, st.f.Company, "2026-07-02")); strings.Join(got, ",") != "passport:lead" {
		t.Errorf("after the renewal: %v", got)
	}
	if got := stages(scan(t, st.s, st.f.Company, "2026-09-01")); strings.Join(got, ",") != "passport:expiring_soon" {
		t.Errorf("the new version expiring: %v", got)
	}
}

// TestWeeklyReminders: an expired document of an active driver is reminded
// on Mondays after the day it expired, once per Monday, until renewed.
func TestWeeklyReminders(t *testing.T) {
	st := newSetup(t)
	scan(t, st.s, st.f.Company, "2026-07-01") // Wednesday: expired
	if got := stages(scan(t, st.s, st.f.Company, "2026-07-06")); strings.Join(got, ",") != "passport:reminder" {
		t.Errorf("first Monday: %v", got)
	}
	if got := stages(scan(t, st.s, st.f.Company, "2026-07-07")); len(got) != 0 {
		t.Errorf("Tuesday: %v", got)
	}
	if got := stages(scan(t, st.s, st.f.Company, "2026-07-13")); strings.Join(got, ",") != "passport:reminder" {
		t.Errorf("second Monday: %v", got)
	}
	// A driver no longer active is not reminded.
	st.f.Exec(`UPDATE drivers SET status = 'terminated' WHERE id = $1`, st.driver)
	if got := stages(scan(t, st.s, st.f.Company, "2026-07-20")); len(got) != 0 {
		t.Errorf("terminated driver reminded: %v", got)
	}
}

// TestMissingRequiredDocuments: a required type without a file is
// 'missing' once; a type that is not required is not.
func TestMissingRequiredDocuments(t *testing.T) {
	st := newSetup(t)
	d := st.f.Driver(fixtures.Name("Eva", "Nová"), fixtures.Email("eva@example.test"))
	st.f.Document(d, "passport", "", time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC))
	got := stages(scan(t, st.s, st.f.Company, "2026-01-05"))
	want := "code_95:missing,drivers_license:missing,medical_examination:missing,tachograph_card:missing"
	if strings.Join(got, ",") != want {
		t.Errorf("missing: %v, want %s", got, want)
	}
	if got := stages(scan(t, st.s, st.f.Company, "2026-01-06")); len(got) != 0 {
		t.Errorf("missing again: %v", got)
	}
}

// TestConcurrentScansOneDigest: two scans of the same day at once (two
// instances) record and send once.
func TestConcurrentScansOneDigest(t *testing.T) {
	st := newSetup(t)
	var wg sync.WaitGroup
	results := make([]alerts.Result, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = st.s.Scan(ctx, st.f.Company, day("2026-07-01"), nil)
		}()
	}
	wg.Wait()
	ran := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !r.AlreadyRun {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("%d scans ran, want 1", ran)
	}
	if n := count(t, st.db, `SELECT count(*) FROM outbox WHERE kind = 'digest' AND recipient = 'admin@example.test'`); n != 1 {
		t.Errorf("%d digests for the admin, want 1", n)
	}
}

// TestDigestAndDriverMail: the digest lists every change in the
// recipient's language with links; the driver's e-mail is in the driver's
// language with an upload link; nothing to say is no e-mail; opting out of
// a kind stops its e-mail but not the notification.
func TestDigestAndDriverMail(t *testing.T) {
	st := newSetup(t)
	res := scan(t, st.s, st.f.Company, "2026-06-16")
	if len(res.Emails) != 3 {
		t.Fatalf("%d e-mails, want 3", len(res.Emails))
	}
	by := map[string]alerts.Email{}
	for _, e := range res.Emails {
		by[e.Recipient] = e
	}
	hr := by["hr@example.test"]
	if hr.Kind != alerts.MailDigest || hr.Language != "cs" || !strings.Contains(hr.Subject, "upozornění") ||
		!strings.Contains(hr.Text, "Jan Novák") || !strings.Contains(hr.Text, "Vyprší do 14 dní") || !strings.Contains(hr.HTML, `lang="cs"`) {
		t.Errorf("HR digest: %+v", hr)
	}
	var docID uuid.UUID
	if err := st.db.QueryRow(ctx, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, st.driver).Scan(&docID); err != nil {
		t.Fatal(err)
	}
	link := base + "/drivers/" + st.driver.String() + "/documents/" + docID.String()
	if !strings.Contains(hr.Text, link) || !strings.Contains(hr.HTML, `href="`+link+`"`) {
		t.Errorf("HR digest lacks the document link %s", link)
	}
	drv := by["jan@example.test"]
	if drv.Kind != alerts.MailDriver || drv.Language != "pl" || !strings.Contains(drv.Text, "Wygasa w ciągu 14 dni") || !strings.Contains(drv.Text, link) ||
		strings.Contains(drv.Text, "DRV-") {
		t.Errorf("driver e-mail: %+v", drv)
	}
	if by["admin@example.test"].Language != "en" {
		t.Errorf("admin digest language %s", by["admin@example.test"].Language)
	}

	// Nothing new: no e-mail at all.
	if res := scan(t, st.s, st.f.Company, "2026-06-17"); len(res.Emails) != 0 || count(t, st.db, `SELECT count(*) FROM outbox`) != 3 {
		t.Errorf("a day without changes sent %d e-mails", len(res.Emails))
	}

	// The admin opts out of stage-change e-mail.
	st.f.Exec(`INSERT INTO notification_settings (user_id, company_id, email) VALUES ($1, $2, '{"document_alert": false}')`, st.admin, st.f.Company)
	res = scan(t, st.s, st.f.Company, "2026-07-01")
	for _, e := range res.Emails {
		if e.Recipient == "admin@example.test" {
			t.Error("the admin opted out but got a digest")
		}
	}
	if n := count(t, st.db, `SELECT count(*) FROM notifications WHERE user_id = $1`, st.admin); n != 2 {
		t.Errorf("the admin has %d notifications, want 2", n)
	}
}

// TestDueScans: a company is due from 07:00 in its own time zone until its
// day has run; after downtime it is due once; a change of time zone moves
// the day, and a day already scanned is not scanned again.
func TestDueScans(t *testing.T) {
	db := pgtest.New(t)
	prague := fixtures.Company(t, db, fixtures.TimeZone("Europe/Prague"))
	ny := fixtures.Company(t, db, fixtures.TimeZone("America/New_York"))
	fixtures.Driver(t, db, prague) // a company without drivers claims no day
	s := alerts.NewScanner(db, base)
	// Prague's company was scanned before (a company never scanned is due
	// at any hour: TestNewCompanyScannedOnceItHasDrivers).
	if _, err := s.Scan(ctx, prague, day("2026-01-01"), nil); err != nil {
		t.Fatal(err)
	}
	due := func(now time.Time) map[uuid.UUID]string {
		list, err := alerts.DueScans(ctx, db, now)
		if err != nil {
			t.Fatal(err)
		}
		out := map[uuid.UUID]string{}
		for _, d := range list {
			out[d.CompanyID] = d.Date.String()
		}
		return out
	}
	// 05:59 UTC = 06:59 in Prague (winter): not yet.
	if d := due(time.Date(2026, 1, 5, 5, 59, 0, 0, time.UTC)); d[prague] != "" {
		t.Errorf("due before 07:00: %v", d)
	}
	// 06:00 UTC = 07:00 Prague; New York is at 01:00.
	if d := due(time.Date(2026, 1, 5, 6, 0, 0, 0, time.UTC)); d[prague] != "2026-01-05" || d[ny] != "" {
		t.Errorf("at 07:00 Prague: %v", d)
	}
	// Summer time: 07:00 in Prague is 05:00 UTC.
	if d := due(time.Date(2026, 7, 6, 5, 0, 0, 0, time.UTC)); d[prague] != "2026-07-06" {
		t.Errorf("at 07:00 CEST: %v", d)
	}
	// Down from Monday 06:00 to Tuesday 15:00: one scan, of Tuesday.
	if d := due(time.Date(2026, 1, 6, 15, 0, 0, 0, time.UTC)); d[prague] != "2026-01-06" {
		t.Errorf("after downtime: %v", d)
	}
	if _, err := s.Scan(ctx, prague, day("2026-01-06"), nil); err != nil {
		t.Fatal(err)
	}
	if d := due(time.Date(2026, 1, 6, 22, 0, 0, 0, time.UTC)); d[prague] != "" {
		t.Errorf("after the day's scan: %v", d)
	}
	// Prague's company moves to New York time at 23:30 UTC Tuesday (18:30
	// there, still Tuesday): Tuesday ran, so nothing is due.
	if _, err := db.Exec(ctx, `UPDATE companies SET timezone = 'America/New_York' WHERE id = $1`, prague); err != nil {
		t.Fatal(err)
	}
	if d := due(time.Date(2026, 1, 6, 23, 30, 0, 0, time.UTC)); d[prague] != "" {
		t.Errorf("after the move, the scanned day again: %v", d)
	}
	// Wednesday 07:00 in New York (12:00 UTC): due for Wednesday.
	if d := due(time.Date(2026, 1, 7, 11, 59, 0, 0, time.UTC)); d[prague] != "" {
		t.Errorf("before 07:00 New York: %v", d)
	}
	if d := due(time.Date(2026, 1, 7, 12, 0, 0, 0, time.UTC)); d[prague] != "2026-01-07" || d[ny] != "2026-01-07" {
		t.Errorf("07:00 New York: %v", d)
	}
}

// TestStagesOnTheCompanysDay: the scheduler names the company's own day,
// so a document expires on the company's calendar, not UTC's: in Auckland
// 07:00 on 1 July is 30 June 19:00 UTC, and on 5 April 2026, when New
// Zealand leaves summer time at 03:00, 07:00 is 19:00 UTC (not 18:00).
func TestStagesOnTheCompanysDay(t *testing.T) {
	st := newSetup(t)
	if _, err := st.db.Exec(ctx, `UPDATE companies SET timezone = 'Pacific/Auckland' WHERE id = $1`, st.f.Company); err != nil {
		t.Fatal(err)
	}
	eva := st.f.Driver(fixtures.Name("Eva", "Malá"), fixtures.Email("eva@example.test"))
	st.f.Document(eva, "passport", "2026-04-04", time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC))
	// runDue scans what is due at now, and returns the day it scanned ("" none)
	// and the passports it found expired that day, by driver.
	runDue := func(now time.Time) (string, map[uuid.UUID]bool) {
		t.Helper()
		list, err := alerts.DueScans(ctx, st.db, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			if d.CompanyID != st.f.Company {
				continue
			}
			expired := map[uuid.UUID]bool{}
			for _, a := range scan(t, st.s, d.CompanyID, d.Date.String()).Alerts {
				if a.DocumentType == "passport" && a.Stage == "expired" {
					expired[a.DriverID] = true
				}
			}
			return d.Date.String(), expired
		}
		return "", nil
	}

	// The last day of summer time: 07:00 NZDT on 4 April is 18:00 UTC on 3 April.
	if date, _ := runDue(time.Date(2026, 4, 3, 18, 0, 0, 0, time.UTC)); date != "2026-04-04" {
		t.Fatalf("07:00 on 4 April (NZDT): scanned %q", date)
	}
	// 5 April: summer time ended at 03:00, so 18:00 UTC is only 06:00.
	if date, _ := runDue(time.Date(2026, 4, 4, 18, 0, 0, 0, time.UTC)); date != "" {
		t.Errorf("06:00 NZST on 5 April: scanned %q, want nothing yet", date)
	}
	date, expired := runDue(time.Date(2026, 4, 4, 19, 0, 0, 0, time.UTC))
	if date != "2026-04-05" || !expired[eva] || len(expired) != 1 {
		t.Errorf("07:00 NZST on 5 April: scanned %q, expired passports %v; want 2026-04-05 and Eva's only", date, expired)
	}

	// Jan's passport is valid until 30 June: expired on 1 July in Auckland,
	// while UTC still has 30 June. Scan up to 30 June first.
	if _, err := st.s.Scan(ctx, st.f.Company, day("2026-06-30"), nil); err != nil {
		t.Fatal(err)
	}
	if date, _ := runDue(time.Date(2026, 6, 30, 18, 59, 0, 0, time.UTC)); date != "" {
		t.Errorf("06:59 on 1 July: scanned %q, want nothing yet", date)
	}
	date, expired = runDue(time.Date(2026, 6, 30, 19, 0, 0, 0, time.UTC))
	if date != "2026-07-01" || !expired[st.driver] || len(expired) != 1 {
		t.Errorf("07:00 on 1 July (30 June in UTC): scanned %q, expired passports %v; want 2026-07-01 and Jan's only", date, expired)
	}
}

// TestNewCompanyScannedOnceItHasDrivers: a new company's scan before its
// drivers are added claims nothing, so the drivers added later that day are
// scanned by the scheduler's next round, not the next morning; then the day
// is claimed and each stage is recorded once.
func TestNewCompanyScannedOnceItHasDrivers(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	now := time.Date(2026, 6, 16, 8, 0, 0, 0, time.UTC) // 10:00 in Prague
	if _, err := db.Exec(ctx, `DELETE FROM drivers WHERE company_id = $1`, f.Company); err != nil {
		t.Fatal(err)
	}
	dueToday := func() bool {
		t.Helper()
		list, err := alerts.DueScans(ctx, db, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			if d.CompanyID == f.Company && d.Date.String() == "2026-06-16" {
				return true
			}
		}
		return false
	}
	s := alerts.NewScanner(db, base)
	if !dueToday() {
		t.Fatal("the new company is not due")
	}
	if res := scan(t, s, f.Company, "2026-06-16"); !res.Empty || res.AlreadyRun || len(res.Alerts) != 0 {
		t.Fatalf("the empty company's scan: %+v", res)
	}
	if !dueToday() {
		t.Fatal("the empty company's scan claimed its day")
	}

	// Created at 03:00 in Prague: without drivers nothing is due, with
	// one its first scan is due at once, not at 07:00.
	early := time.Date(2026, 6, 16, 1, 0, 0, 0, time.UTC)
	dueEarly := func() bool {
		t.Helper()
		list, err := alerts.DueScans(ctx, db, early)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			if d.CompanyID == f.Company {
				return true
			}
		}
		return false
	}
	if dueEarly() {
		t.Error("a company without drivers is due before 07:00")
	}
	d := f.Driver(fixtures.Name("Eva", "Malá"))
	f.Document(d, "passport", "2026-06-20", time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC))
	if !dueEarly() {
		t.Error("a new company with a driver is not due before its first 07:00")
	}
	user(t, db, f.Company, "hr_manager", "hr@example.test", "en")
	res := scan(t, s, f.Company, "2026-06-16")
	if res.Empty || res.AlreadyRun || !hasAlert(res, d, "passport", "expiring_soon") {
		t.Fatalf("the scan once the driver is added: %+v", res)
	}
	if dueToday() {
		t.Error("still due after the scan")
	}
	if again := scan(t, s, f.Company, "2026-06-16"); !again.AlreadyRun || len(again.Alerts) != 0 {
		t.Errorf("a second scan of the day: %+v", again)
	}
	if n := count(t, db, `SELECT count(*) FROM document_alerts WHERE company_id = $1 AND stage = 'expiring_soon'`, f.Company); n != 1 {
		t.Errorf("%d expiring_soon stages, want 1", n)
	}
}

func hasAlert(res alerts.Result, driver uuid.UUID, typ, stage string) bool {
	for _, a := range res.Alerts {
		if a.DriverID == driver && a.DocumentType == typ && a.Stage == stage {
			return true
		}
	}
	return false
}
