package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
	"github.com/konvoj/konvoj/web/webtest"
)

// month returns the company's (Europe/Prague) month n months from now.
func month(n int) rating.Period {
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		panic(err)
	}
	p := rating.CurrentPeriod(loc, time.Now())
	for ; n < 0; n++ {
		p = p.Prev()
	}
	for ; n > 0; n-- {
		p = p.Next()
	}
	return p
}

func configPath(company uuid.UUID) string {
	return "/api/v0/companies/" + company.String() + "/rating-config"
}

func metricByName(t *testing.T, cfg map[string]any, name string) map[string]any {
	t.Helper()
	for _, m := range cfg["metrics"].([]any) {
		if m := m.(map[string]any); m["metric_name"] == name {
			return m
		}
	}
	t.Fatalf("no metric %s in %v", name, cfg)
	return nil
}

func TestRatingConfigReadAndPartialUpdate(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)

	cfg := hr.Get(configPath(company)).Expect(http.StatusOK).JSON()
	if len(cfg["metrics"].([]any)) != 6 || cfg["total_weight"] != float64(100) {
		t.Fatalf("default config %v", cfg)
	}
	if m := metricByName(t, cfg, "penalties_amount"); m["weight"] != float64(20) || m["thresholds"].(map[string]any)["max_amount"] != float64(10000) {
		t.Errorf("default penalties_amount %v", m)
	}

	res := hr.Put(configPath(company), map[string]any{"metrics": []any{
		map[string]any{"metric_name": "document_expiration", "weight": 25},
		map[string]any{"metric_name": "activity", "weight": 15, "thresholds": map[string]any{"min_orders_per_month": 12}},
		map[string]any{"metric_name": "penalties_count", "is_enabled": false},
	}}).Expect(http.StatusOK).JSON()
	if res["updated_metrics"] != float64(3) || res["total_weight"] != float64(100) || res["message"] == "" {
		t.Errorf("update answer %v", res)
	}
	cfg = hr.Get(configPath(company)).Expect(http.StatusOK).JSON()
	if m := metricByName(t, cfg, "document_expiration"); m["weight"] != float64(25) || m["is_enabled"] != true ||
		m["thresholds"].(map[string]any)["warning_days"] != float64(30) {
		t.Errorf("document_expiration after update %v", m)
	}
	if m := metricByName(t, cfg, "activity"); m["weight"] != float64(15) || m["thresholds"].(map[string]any)["min_orders_per_month"] != float64(12) {
		t.Errorf("activity after update %v", m)
	}
	if m := metricByName(t, cfg, "penalties_count"); m["is_enabled"] != false || m["weight"] != float64(20) {
		t.Errorf("penalties_count after update %v", m)
	}

	// One audit row per changed metric, with only the changed fields.
	logs := hr.Get("/api/v0/audit-logs?entity_type=rating_config").Expect(http.StatusOK).JSON()
	if logs["total"] != float64(3) {
		t.Fatalf("%v audit rows, want 3", logs["total"])
	}
	for _, l := range logs["data"].([]any) {
		l := l.(map[string]any)
		nv := l["new_values"].(map[string]any)
		if l["action"] != "updated" || nv["metric_name"] == nil {
			t.Errorf("audit row %v", l)
		}
		if nv["metric_name"] == "penalties_count" && (nv["is_enabled"] != false || nv["weight"] != nil) {
			t.Errorf("penalties_count audit carries unchanged fields: %v", nv)
		}
	}

	// Disabled metrics are left out of the components.
	d := env.Driver(company)
	r := hr.Get("/api/v0/drivers/" + d.String() + "/rating").Expect(http.StatusOK).JSON()
	comps := r["components"].(map[string]any)
	if _, ok := comps["penalties_count"]; ok || len(comps) != 5 {
		t.Errorf("components with penalties_count disabled: %v", comps)
	}
}

func TestRatingConfigValidation(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	before := string(admin.Get(configPath(company)).Expect(http.StatusOK).Body)

	tests := []struct {
		name  string
		body  string
		field string
	}{
		{"metrics missing", `{}`, "metrics"},
		{"weight above 100", `{"metrics": [{"metric_name": "activity"}, {"metric_name": "document_expiration", "weight": 130}]}`, "metrics.1.weight"},
		{"weight below 0", `{"metrics": [{"metric_name": "document_expiration", "weight": -5}]}`, "metrics.0.weight"},
		{"weights not summing to 100", `{"metrics": [{"metric_name": "document_expiration", "weight": 40}]}`, "metrics"},
		{"fewer than 3 enabled", `{"metrics": [
			{"metric_name": "document_expiration", "is_enabled": false},
			{"metric_name": "penalties_count", "is_enabled": false},
			{"metric_name": "penalties_amount", "is_enabled": false},
			{"metric_name": "activity", "is_enabled": false}]}`, "metrics"},
		{"unknown metric", `{"metrics": [{"metric_name": "speed", "weight": 10}]}`, "metrics.0.metric_name"},
		{"metric listed twice", `{"metrics": [{"metric_name": "activity"}, {"metric_name": "activity"}]}`, "metrics.1.metric_name"},
		{"threshold not positive", `{"metrics": [{"metric_name": "penalties_count", "thresholds": {"max_count": 0}}]}`, "metrics.0.thresholds.max_count"},
		{"threshold of another metric", `{"metrics": [{"metric_name": "penalties_count", "thresholds": {"max_amount": 5}}]}`, "metrics.0.thresholds.max_amount"},
		{"threshold not a number", `{"metrics": [{"metric_name": "activity", "thresholds": {"min_orders_per_month": "many"}}]}`, "metrics.0.thresholds.min_orders_per_month"},
		{"is_enabled not a boolean", `{"metrics": [{"metric_name": "activity", "is_enabled": "no"}]}`, "metrics.0.is_enabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := admin.Put(configPath(company), tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			fields, _ := body["errors"].(map[string]any)
			if msgs, _ := fields[tt.field].([]any); len(msgs) == 0 {
				t.Errorf("no message for %s: %v", tt.field, fields)
			}
		})
	}
	admin.Put(configPath(company), `{"metrics": [`).ExpectError(http.StatusBadRequest, "BadRequest")
	if after := string(admin.Get(configPath(company)).Expect(http.StatusOK).Body); after != before {
		t.Errorf("refused updates changed the configuration:\n%s\n%s", before, after)
	}
	if logs := admin.Get("/api/v0/audit-logs?entity_type=rating_config").Expect(http.StatusOK).JSON(); logs["total"] != float64(0) {
		t.Errorf("refused updates wrote %v audit rows", logs["total"])
	}
}

func TestRatingConfigPermissions(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	valid := `{"metrics": [{"metric_name": "activity", "thresholds": {"min_orders_per_month": 9}}]}`

	for _, role := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
		c := env.As(company, role)
		c.Put(configPath(company), valid).ExpectError(http.StatusForbidden, "Forbidden")
		c.Get(configPath(company)).Expect(http.StatusOK)
	}
	// The role check comes before the body is looked at.
	env.As(company, auth.RoleAccountant).Put(configPath(company), `{"metrics": [`).ExpectError(http.StatusForbidden, "Forbidden")

	hr := env.As(company, auth.RoleHRManager)
	hr.Get(configPath(other)).ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Put(configPath(other), valid).ExpectError(http.StatusForbidden, "AccessDenied")
	// An unknown company is 404 (docs/errors.md: the record, then its company).
	hr.Put(configPath(uuid.New()), valid).ExpectError(http.StatusNotFound, "NotFound")
	hr.Get("/api/v0/companies/not-a-uuid/rating-config").ExpectError(http.StatusNotFound, "NotFound")
	env.Anonymous().Get(configPath(company)).ExpectError(http.StatusUnauthorized, "Unauthorized")

	hr.Put(configPath(company), valid).Expect(http.StatusOK)
	if m := metricByName(t, env.As(other, auth.RoleAdmin).Get(configPath(other)).Expect(http.StatusOK).JSON(), "activity"); m["thresholds"].(map[string]any)["min_orders_per_month"] != float64(8) {
		t.Errorf("another company's config changed: %v", m)
	}
}

func TestRatingCurrentMonthOnDemand(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := env.Driver(company, fixtures.Email("anna@example.test"), fixtures.HireDate("2024-01-01"))
	d2 := env.Driver(company)
	foreign := env.Driver(other)
	path := "/api/v0/drivers/" + d.String() + "/rating"

	r := hr.Get(path).Expect(http.StatusOK).JSON()
	if r["rating_period"] != month(0).String() || r["driver_id"] != d.String() || r["previous_score"] != nil || r["score_change"] != nil {
		t.Errorf("current rating %v", r)
	}
	comps := r["components"].(map[string]any)
	if len(comps) != 6 {
		t.Fatalf("components %v", comps)
	}
	// No documents: 0; no penalties: 100, 100; 5 of 20 fields: 25; no
	// renewals: 100; no company orders: activity not applicable.
	// (0×30 + 100×20 + 100×20 + 25×10 + 100×10) × 100 / 90 = 58.33
	if r["total_score"] != 58.33 {
		t.Errorf("total_score %v, want 58.33", r["total_score"])
	}
	act := comps["activity"].(map[string]any)
	if act["applicable"] != false || act["contribution"] != float64(0) || !strings.HasPrefix(act["details"].(string), "Not applicable") {
		t.Errorf("activity %v", act)
	}
	if de := comps["document_expiration"].(map[string]any); !strings.HasPrefix(de["details"].(string), "0 of 5 required documents expire within 30 days, 5 expired or missing") {
		t.Errorf("document_expiration details %q", de["details"])
	}
	// Reading again computes the same rating and stores nothing.
	if again := hr.Get(path).Expect(http.StatusOK).JSON(); again["total_score"] != r["total_score"] {
		t.Errorf("second read %v, first %v", again["total_score"], r["total_score"])
	}
	var n int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM rating_snapshots WHERE driver_id = $1`, d).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d snapshots (%v), want 0: a read never writes", n, err)
	}

	// A driver sees its own rating only; every other role sees all.
	driver := env.As(company, auth.RoleDriver, "anna@example.test")
	driver.Get(path).Expect(http.StatusOK)
	driver.Get("/api/v0/drivers/"+d2.String()+"/rating").ExpectError(http.StatusForbidden, "AccessDenied")
	for _, role := range []auth.Role{auth.RoleAdmin, auth.RoleAccountant, auth.RoleDispatcher} {
		env.As(company, role).Get(path).Expect(http.StatusOK)
	}
	hr.Get("/api/v0/drivers/"+foreign.String()+"/rating").ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Get("/api/v0/drivers/"+uuid.NewString()+"/rating").ExpectError(http.StatusNotFound, "NotFound")
	hr.Get("/api/v0/drivers/42/rating").ExpectError(http.StatusNotFound, "NotFound")

	hr.Get(path+"?period=2026-13").ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Get(path+"?period="+month(1).String()).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	// A past month without a snapshot is rated on request.
	if past := hr.Get(path + "?period=" + month(-3).String()).Expect(http.StatusOK).JSON(); past["rating_period"] != month(-3).String() {
		t.Errorf("unrated past month %v", past)
	}
}

func TestRatingRecalculateAndScoreChange(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := env.Driver(company)
	base := "/api/v0/drivers/" + d.String() + "/rating"

	// Last month: 2 penalties of 2500 (count 60, amount 50); this month none.
	last := month(-1)
	data := ratingtest.Fixtures{T: t, DB: env.DB, Company: company}
	for i := 0; i < 2; i++ {
		data.Penalty(d, last.First().AddDays(4).String(), "2500", "pending", false)
	}
	for _, role := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
		env.As(company, role).Post(base+"/calculate", map[string]any{"period": last.String()}).ExpectError(http.StatusForbidden, "Forbidden")
	}
	hr.Post(base+"/calculate", map[string]any{"period": "2026/01"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	hr.Post(base+"/calculate", map[string]any{"period": month(2).String()}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	hr.Post("/api/v0/drivers/"+uuid.NewString()+"/rating/calculate", map[string]any{"period": last.String()}).ExpectError(http.StatusNotFound, "NotFound")

	calc := hr.Post(base+"/calculate", map[string]any{"period": last.String()}).Expect(http.StatusOK).JSON()
	// (0×30 + 60×20 + 50×20 + 20×10 + 100×10) × 100 / 90 = 37.78
	if calc["total_score"] != 37.78 || calc["snapshot_id"] == nil || calc["calculated_at"] == nil {
		t.Fatalf("recalculation %v", calc)
	}
	past := hr.Get(base + "?period=" + last.String()).Expect(http.StatusOK).JSON()
	if past["total_score"] != 37.78 || past["rank_percentile"] != float64(100) {
		t.Errorf("stored past month %v", past)
	}

	cur := hr.Get(base).Expect(http.StatusOK).JSON()
	// (0 + 20 + 20 + 2 + 10) × 100 / 90 = 57.78
	if cur["total_score"] != 57.78 || cur["previous_score"] != 37.78 || cur["score_change"] != float64(20) {
		t.Errorf("current month %v: want total 57.78, previous 37.78, change 20.00", cur)
	}
	// Recalculating without a body means the current month.
	if r := hr.Post(base+"/calculate", nil).Expect(http.StatusOK).JSON(); r["total_score"] != 57.78 {
		t.Errorf("recalculate current month %v", r)
	}
}

func TestRatingHistory(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := env.Driver(company, fixtures.Email("eva@example.test"))
	d2 := env.Driver(company)
	path := "/api/v0/drivers/" + d.String() + "/rating/history"

	// Months -8 … -1 with rising scores, and the same score twice as lowest.
	scores := map[int]string{-8: "40.00", -7: "50.00", -6: "50.00", -5: "55.00", -4: "60.00", -3: "62.50", -2: "70.00", -1: "75.00"}
	for m := -8; m <= -1; m++ {
		var prev any
		if p, ok := scores[m-1]; ok {
			prev = p
		}
		_, err := env.DB.Exec(context.Background(), `
			INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score, rank_percentile, previous_score)
			VALUES ($1, $2, $3, $4::numeric, 50, $5::numeric)`, company, d, month(m).First(), scores[m], prev)
		if err != nil {
			t.Fatal(err)
		}
	}
	h := hr.Get(path).Expect(http.StatusOK).JSON()
	// Default window: from 6 months before today (its whole month) to today.
	data := h["data"].([]any)
	if h["per_page"] != float64(12) || h["total"] != float64(6) || len(data) != 6 {
		t.Fatalf("default history: per_page %v total %v, %d items", h["per_page"], h["total"], len(data))
	}
	for i, it := range data {
		it := it.(map[string]any)
		if it["rating_period"] != month(-1-i).String() {
			t.Errorf("item %d is %v, want %s (newest first)", i, it["rating_period"], month(-1-i))
		}
	}
	if first := data[0].(map[string]any); first["total_score"] != float64(75) || first["score_change"] != float64(5) {
		t.Errorf("newest item %v", first)
	}
	sum := h["summary"].(map[string]any)
	want := map[string]any{
		"highest_score": float64(75), "highest_period": month(-1).String(),
		"lowest_score": float64(50), "lowest_period": month(-6).String(),
		"average_score": 62.08, // (50+55+60+62.5+70+75)/6
		"trend":         "improving",
	}
	for k, v := range want {
		if sum[k] != v {
			t.Errorf("summary %s = %v, want %v", k, sum[k], v)
		}
	}

	// A wider window, paged: the summary covers the whole window.
	from := month(-8).First().String()
	h = hr.Get(path + "?from=" + from + "&per_page=3&page=2").Expect(http.StatusOK).JSON()
	data = h["data"].([]any)
	if h["total"] != float64(8) || len(data) != 3 || data[0].(map[string]any)["rating_period"] != month(-4).String() {
		t.Errorf("page 2 of 3: total %v, data %v", h["total"], data)
	}
	if s := h["summary"].(map[string]any); s["lowest_score"] != float64(40) || s["lowest_period"] != month(-8).String() {
		t.Errorf("summary of the wider window %v", s)
	}
	if h = hr.Get(path + "?per_page=500").Expect(http.StatusOK).JSON(); h["per_page"] != float64(24) {
		t.Errorf("per_page clamped to %v, want 24", h["per_page"])
	}
	// Equal scores are stable; one month is not enough for a trend.
	one := month(-2).First().String()
	if s := hr.Get(path + "?from=" + one + "&to=" + one).Expect(http.StatusOK).JSON()["summary"].(map[string]any); s["trend"] != "insufficient_data" {
		t.Errorf("one month: trend %v", s["trend"])
	}
	if s := hr.Get(path + "?from=" + month(-7).First().String() + "&to=" + month(-6).Last().String()).Expect(http.StatusOK).JSON()["summary"].(map[string]any); s["trend"] != "stable" {
		t.Errorf("50 then 50: trend %v", s["trend"])
	}
	empty := hr.Get("/api/v0/drivers/" + d2.String() + "/rating/history").Expect(http.StatusOK).JSON()
	if s := empty["summary"].(map[string]any); s["trend"] != "insufficient_data" || s["highest_score"] != nil || empty["total"] != float64(0) {
		t.Errorf("empty history %v", empty)
	}

	hr.Get(path+"?from=2026-02-30").ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Get(path+"?from=2026-05-01&to=2026-04-01").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	env.As(company, auth.RoleDriver, "eva@example.test").Get(path).Expect(http.StatusOK)
	env.As(company, auth.RoleDriver, "eva@example.test").Get("/api/v0/drivers/"+d2.String()+"/rating/history").ExpectError(http.StatusForbidden, "AccessDenied")
}

func TestRatingRanking(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	hr := env.As(company, auth.RoleHRManager)
	last := month(-1)
	data := ratingtest.Fixtures{T: t, DB: env.DB, Company: company}
	var ids []uuid.UUID
	for i, n := range []int{2, 0, 1} { // penalties last month
		d := env.Driver(company, fixtures.Email(fmt.Sprintf("r%d@example.test", i)))
		for j := 0; j < n; j++ {
			data.Penalty(d, last.First().String(), "100", "pending", false)
		}
		hr.Post("/api/v0/drivers/"+d.String()+"/rating/calculate", map[string]any{"period": last.String()}).Expect(http.StatusOK)
		ids = append(ids, d)
	}
	env.Driver(other)

	page := hr.Get("/api/v0/ratings?period=" + last.String()).Expect(http.StatusOK).JSON()
	rows := page["data"].([]any)
	if page["total"] != float64(3) || len(rows) != 3 {
		t.Fatalf("ranking %v", page)
	}
	order := []uuid.UUID{ids[1], ids[2], ids[0]} // fewest penalties first
	pct := []float64{100, 67, 34}
	for i, r := range rows {
		r := r.(map[string]any)
		if r["driver_id"] != order[i].String() || r["rank_percentile"] != pct[i] || r["rating_period"] != last.String() {
			t.Errorf("row %d: %v, want driver %s percentile %v", i, r, order[i], pct[i])
		}
	}
	asc := hr.Get("/api/v0/ratings?period=" + last.String() + "&sort_order=asc&per_page=1&page=1").Expect(http.StatusOK).JSON()
	if r := asc["data"].([]any)[0].(map[string]any); r["driver_id"] != ids[0].String() || asc["last_page"] != float64(3) {
		t.Errorf("ascending first row %v", asc)
	}
	byNumber := hr.Get("/api/v0/ratings?period=" + last.String() + "&sort_by=internal_number").Expect(http.StatusOK).JSON()
	if r := byNumber["data"].([]any)[0].(map[string]any); r["driver_id"] != ids[0].String() || r["internal_number"] != "DRV-0001" {
		t.Errorf("by internal number %v", r)
	}
	hr.Get("/api/v0/ratings?sort_by=salary").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	hr.Get("/api/v0/ratings?period=May").ExpectError(http.StatusBadRequest, "BadRequest")
	if cur := hr.Get("/api/v0/ratings").Expect(http.StatusOK).JSON(); cur["total"] != float64(0) {
		t.Errorf("current month ranking before any read: %v", cur["total"])
	}

	own := env.As(company, auth.RoleDriver, "r2@example.test").Get("/api/v0/ratings?period=" + last.String()).Expect(http.StatusOK).JSON()
	if own["total"] != float64(1) || own["data"].([]any)[0].(map[string]any)["driver_id"] != ids[2].String() {
		t.Errorf("a driver's ranking view %v", own)
	}
	env.As(company, auth.RoleAccountant).Get("/api/v0/ratings?period=" + last.String()).Expect(http.StatusOK)
	if o := env.As(other, auth.RoleAdmin).Get("/api/v0/ratings?period=" + last.String()).Expect(http.StatusOK).JSON(); o["total"] != float64(0) {
		t.Errorf("another company sees %v rows", o["total"])
	}
}

// TestRatingRenewalThroughUploads: a new version uploaded through the API
// for an expired document counts as a late renewal, measured from the
// valid_until it replaced.
func TestRatingRenewalThroughUploads(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := env.Driver(company)
	var docID uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, d).Scan(&docID); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("Europe/Prague")
	today := time.Now().In(loc)
	expired := today.AddDate(0, 0, -5).Format(time.DateOnly)
	renewed := today.AddDate(2, 0, 0).Format(time.DateOnly)
	mustUpload(t, hr, docID, filePart("old.pdf", samplePDF(t, 2000)), field("valid_until", expired))
	mustUpload(t, hr, docID, filePart("new.pdf", samplePDF(t, 2000)), field("valid_until", renewed))

	r := hr.Get("/api/v0/drivers/" + d.String() + "/rating").Expect(http.StatusOK).JSON()
	c := r["components"].(map[string]any)["document_upload_timeliness"].(map[string]any)
	// 5 days late: 100 × (1 − 5 / 28) = 82.14; the first upload renews nothing.
	if c["score"] != 82.14 || c["raw_value"] != float64(5) || !strings.HasPrefix(c["details"].(string), "1 renewal in") {
		t.Errorf("timeliness after a late renewal: %v", c)
	}
}
