package pages_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/web/webtest"
)

// storeSnapshot writes a driver's stored rating of a month, as the monthly
// job would, with one component per metric at the given scores.
func storeSnapshot(t *testing.T, env *webtest.Env, company, driver uuid.UUID, month rating.Period, total string, pct int, prev *string, scores map[string]string) {
	t.Helper()
	comps := map[string]rating.ComponentView{}
	for m, s := range scores {
		comps[m] = rating.ComponentView{Score: json.Number(s), Weight: "10", Contribution: "1", Details: m + " details", Applicable: true}
	}
	b, _ := json.Marshal(comps)
	_, err := env.DB.Exec(context.Background(), `
		INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score, components, rank_percentile, previous_score)
		VALUES ($1, $2, $3, $4::numeric, $5, $6, $7::numeric)`,
		company, driver, month.First(), total, string(b), pct, prev)
	if err != nil {
		t.Fatal(err)
	}
}

func strPtr(s string) *string { return &s }

var (
	rankingDriver = regexp.MustCompile(`data-testid="ranking-row" data-driver-id="([0-9a-f-]+)"`)
	chartPoint    = regexp.MustCompile(`data-testid="chart-point" data-period="([0-9-]+)" data-score="([0-9.]+)"`)
)

// TestRatingPages: HR sees the month's ranking with its histogram, sorts
// it by change, filters it by name and score band and exports it; a
// driver is sent from the ranking to its own rating, which shows the bars,
// the history chart of the stored months and what would raise the score,
// naming a missing document; an admin is told the weights sum to 90,
// previews a valid change and saves it; HR recalculates a driver.
func TestRatingPages(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	office := fixtures.Office(t, env.DB, company, "Brno")
	ada := env.Driver(company, fixtures.Name("Ada", "Nováková"), fixtures.Email("ada@acme.test"), fixtures.InOffice(office))
	ben := env.Driver(company, fixtures.Name("Ben", "Dvořák"), fixtures.Email("ben@acme.test"))
	cyril := env.Driver(company, fixtures.Name("Cyril", "Svoboda"), fixtures.Email("cyril@acme.test"))
	now := rating.PeriodOf(civilToday())
	last := now.Prev()
	all := map[string]string{}
	for _, m := range rating.Metrics {
		all[m] = "90"
	}
	weakDocs := map[string]string{rating.DocumentExpiration: "20", rating.PenaltiesCount: "100"}
	// Last month: Ada 60, Ben 80, Cyril 70; this month: Ada 90 (+30), Ben 75 (−5), Cyril 72 (+2).
	storeSnapshot(t, env, company, ada, last.Prev(), "50.00", 34, nil, all)
	storeSnapshot(t, env, company, ada, last, "60.00", 34, strPtr("50.00"), all)
	storeSnapshot(t, env, company, ben, last, "80.00", 100, nil, all)
	storeSnapshot(t, env, company, cyril, last, "70.00", 67, nil, all)
	storeSnapshot(t, env, company, ada, now, "90.00", 100, strPtr("60.00"), all)
	storeSnapshot(t, env, company, ben, now, "75.00", 67, strPtr("80.00"), weakDocs)
	storeSnapshot(t, env, company, cyril, now, "72.00", 34, strPtr("70.00"), all)

	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	res := hr.get("/ratings")
	if res.Status != http.StatusOK {
		t.Fatalf("ranking: %d %s", res.Status, truncate(res.Body))
	}
	if got := order(res.Body); !equalIDs(got, ada, ben, cyril) {
		t.Errorf("default order (score descending) = %v", got)
	}
	for _, want := range []string{`data-testid="histogram-svg"`, `role="img"`, `data-bin="90–100" data-count="1"`, `data-bin="70–80" data-count="2"`,
		"Nováková", "Brno", `data-change="30.00"`, `data-change="-5.00"`, "Valid documents"} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("ranking lacks %q", want)
		}
	}
	res = hr.get("/ratings?sort_by=score_change&sort_order=asc")
	if got := order(res.Body); !equalIDs(got, ben, cyril, ada) {
		t.Errorf("by change ascending = %v", got)
	}
	res = hr.get("/ratings?q=novakova")
	if got := order(res.Body); !equalIDs(got, ada) {
		t.Errorf("search without accents = %v", got)
	}
	res = hr.get("/ratings?band=70-85&office_id=" + office.String())
	if got := order(res.Body); len(got) != 0 {
		t.Errorf("Ada (90) is not in 70–85: %v", got)
	}
	res = hr.get("/ratings?period=" + last.String() + "&band=70-85")
	if got := order(res.Body); !equalIDs(got, ben, cyril) {
		t.Errorf("last month's 70–85 = %v", got)
	}
	res = hr.get("/ratings?period=2999-01")
	if res.Status != http.StatusUnprocessableEntity {
		t.Errorf("a future month: %d", res.Status)
	}
	csv := hr.get("/ratings/export?format=csv&sort_by=score_change")
	if csv.Status != http.StatusOK || !strings.Contains(csv.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", csv.Status, csv.Header.Get("Content-Type"))
	}
	lines := strings.Split(strings.TrimSpace(csv.Body), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "Nováková") || !strings.Contains(lines[3], "Dvořák") {
		t.Errorf("export by change descending:\n%s", csv.Body)
	}
	xlsx := hr.get("/ratings/export?format=xlsx")
	if xlsx.Status != http.StatusOK || !strings.HasPrefix(xlsx.Body, "PK") {
		t.Errorf("xlsx export: %d", xlsx.Status)
	}

	// The driver: its own rating, never the ranking.
	me := signIn(t, env, company, auth.RoleDriver, "ben@acme.test", "en")
	res = me.get("/ratings")
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/drivers/"+ben.String()+"/rating" {
		t.Errorf("a driver's ranking: %d → %q", res.Status, res.Header.Get("Location"))
	}
	if res = me.get("/ratings/export"); res.Status != http.StatusForbidden {
		t.Errorf("a driver's export: %d", res.Status)
	}
	res = me.get("/drivers/" + ben.String() + "/rating")
	if res.Status != http.StatusOK {
		t.Fatalf("own rating: %d %s", res.Status, truncate(res.Body))
	}
	for _, want := range []string{`data-testid="component-bar"`, `data-testid="history-chart"`, "drivers this month", `data-testid="rating-advice"`,
		"Hand in your", `data-testid="recalculate"`} {
		if strings.Contains(res.Body, want) == (want == `data-testid="recalculate"`) {
			t.Errorf("own rating page: %q present = %v", want, strings.Contains(res.Body, want))
		}
	}
	points := chartPoint.FindAllStringSubmatch(res.Body, -1)
	if len(points) != 2 || points[0][1] != last.String() || points[0][2] != "80.00" || points[1][2] != "75.00" {
		t.Errorf("chart points = %v", points)
	}
	home := me.get("/")
	if !strings.Contains(home.Body, `href="/drivers/`+ben.String()+`/rating"`) {
		t.Errorf("the driver's home does not link its rating")
	}
	if res = me.get("/drivers/" + ada.String() + "/rating"); res.Status != http.StatusForbidden {
		t.Errorf("another driver's rating: %d", res.Status)
	}

	// HR: another driver's page with the recalculate button.
	res = hr.get("/drivers/" + ada.String() + "/rating?period=" + last.String())
	if got := chartPoint.FindAllStringSubmatch(res.Body, -1); len(got) != 2 || got[0][2] != "50.00" || got[1][2] != "60.00" {
		t.Errorf("Ada's chart up to last month = %v", got)
	}
	if !strings.Contains(res.Body, `data-trend="improving"`) || !strings.Contains(res.Body, `data-testid="trend-line"`) {
		t.Errorf("Ada's trend is not shown as improving")
	}
	res = hr.post("/drivers/"+ada.String()+"/rating/recalculate", url.Values{"period": {now.String()}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("recalculate: %d %s", res.Status, truncate(res.Body))
	}
	if page := hr.get(res.Header.Get("Location")); !strings.Contains(page.Body, "Rating recalculated") {
		t.Errorf("no confirmation after recalculating")
	}

	// The configuration: weights summing to 90, then a valid preview and save.
	admin := signIn(t, env, company, auth.RoleAdmin, "admin@acme.test", "en")
	form := url.Values{"action": {"save"}}
	weights := map[string]string{rating.DocumentExpiration: "30", rating.PenaltiesCount: "20", rating.PenaltiesAmount: "20",
		rating.ProfileCompleteness: "10", rating.DocumentUploadTimeliness: "10", rating.Activity: "0"}
	thresholds := map[string]string{"warning_days": "30", "max_count": "5", "max_amount": "10000", "required_fields": "20", "avg_days": "7", "min_orders_per_month": "8"}
	for _, m := range rating.Metrics {
		form.Set("weight."+m, weights[m])
		form.Set("enabled."+m, "true")
		form.Set("threshold."+m, thresholds[rating.ThresholdKey(m)])
	}
	before := env.Checksum()
	res = admin.post("/ratings/config", form)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "they sum to 90") {
		t.Fatalf("weights summing to 90: %d %s", res.Status, truncate(res.Body))
	}
	if env.Checksum() != before {
		t.Error("a refused configuration changed data")
	}
	form.Set("weight."+rating.DocumentExpiration, "40")
	form.Set("threshold."+rating.PenaltiesCount, "0")
	form.Set("action", "preview")
	res = admin.post("/ratings/config", form)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, `id="threshold-err-penalties_count"`) {
		t.Errorf("a bad threshold is not shown at its field: %d", res.Status)
	}
	form.Set("threshold."+rating.PenaltiesCount, "5")
	res = admin.post("/ratings/config", form)
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `data-testid="preview-table"`) || strings.Count(res.Body, `data-testid="preview-row"`) != 3 {
		t.Fatalf("preview: %d %s", res.Status, truncate(res.Body))
	}
	if env.Checksum() != before {
		t.Error("the preview changed data")
	}
	form.Set("action", "save")
	res = admin.post("/ratings/config", form)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", res.Status, truncate(res.Body))
	}
	if page := admin.get("/ratings/config"); !strings.Contains(page.Body, `name="weight.document_expiration" value="40"`) {
		t.Errorf("the saved weight is not shown")
	}
	if res = hr.get("/ratings/config"); res.Status != http.StatusOK {
		t.Errorf("HR's configuration: %d", res.Status)
	}
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	if res = acc.get("/ratings"); res.Status != http.StatusOK || strings.Contains(res.Body, `data-testid="rating-config-link"`) {
		t.Errorf("the accountant's ranking: %d, or it links the configuration", res.Status)
	}
}

func order(body string) []string {
	var out []string
	for _, m := range rankingDriver.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func equalIDs(got []string, want ...uuid.UUID) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i].String() {
			return false
		}
	}
	return true
}

// civilToday is today in the companies' default time zone.
func civilToday() civil.Date {
	loc, _ := time.LoadLocation("Europe/Prague")
	return civil.DateOf(time.Now().In(loc))
}
