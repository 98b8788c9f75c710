package e2e

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
)

// The rating dashboards on the demo company, as `make run` seeds it (six
// months of ratings): an admin sorts last month's ranking by change, sets
// weights that sum to 90 and is told so, fixes them and sees the preview
// reorder the ranking; a driver's page draws the component bars and a
// 12-month chart whose points, read back from the SVG's geometry, are the
// history API's scores; the driver on a phone is told which of its own
// documents to renew. Every page is photographed in English and Czech and
// checked with axe-core.
func TestRatingDashboards(t *testing.T) {
	app := newApp(t)
	cmd := exec.Command(shared.binary, "seed-demo")
	cmd.Env = app.Env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("seed-demo: %v\n%s", err, out)
	}
	first, _, _ := strings.Cut(string(out), "\n")
	company, err := uuid.Parse(first)
	must(t, err)
	now := companyNow()
	prague := now.Location()
	lastMonth := time.Date(now.Year(), now.Month()-1, 1, 0, 0, 0, 0, prague).Format("2006-01")

	page := app.SignIn(t, company, auth.RoleAdmin, Person{Email: "alena.e2e@demo-transport.cz", FirstName: "Alena", LastName: "Marková"})

	// The ranking of last month, sorted by the change since the month
	// before: the biggest rise first, then (a second click) ascending.
	_, err = page.Goto(app.URL + "/ratings?period=" + lastMonth)
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("ranking-row").First()).ToBeVisible())
	rows, err := page.GetByTestId("ranking-row").Count()
	must(t, err)
	if rows < 20 {
		t.Fatalf("the demo company's ranking has %d rows, want its ~50 drivers", rows)
	}
	changes := func() []float64 {
		vals, err := page.GetByTestId("ranking-row").EvaluateAll(`rows => rows.map(r => r.dataset.change)`)
		must(t, err)
		var out []float64
		for _, v := range vals.([]any) {
			if s, _ := v.(string); s != "" {
				f, err := strconv.ParseFloat(s, 64)
				must(t, err)
				out = append(out, f)
			}
		}
		return out
	}
	sorted := page.Locator(`th[aria-sort]`)
	must(t, page.GetByTestId("sort-ranking.col.change").Click())
	must(t, expect.Locator(sorted).ToContainText("Change"))
	must(t, expect.Locator(sorted).ToHaveAttribute("aria-sort", "descending"))
	desc := changes()
	if len(desc) < 10 || !slices.IsSortedFunc(desc, func(a, b float64) int { return cmp.Compare(b, a) }) || desc[0] == desc[len(desc)-1] {
		t.Fatalf("sorted by change: %v, want at least 10 changes, not all equal, biggest first", desc)
	}
	must(t, page.GetByTestId("sort-ranking.col.change").Click())
	must(t, expect.Locator(sorted).ToHaveAttribute("aria-sort", "ascending"))
	if asc := changes(); !slices.IsSorted(asc) || asc[0] != desc[len(desc)-1] {
		t.Fatalf("sorted by change, ascending: %v", asc)
	}
	must(t, expect.Locator(page.GetByTestId("histogram-svg")).ToHaveAttribute("role", "img"))
	app.Screenshots(t, page, "rating-ranking-en")
	app.CheckA11y(t, page)

	// The configuration: weights that sum to 90, told live and on saving.
	must(t, page.GetByTestId("rating-config-link").Click())
	must(t, waitURL(page, app.URL+"/ratings/config"))
	weights := map[string]string{"document_expiration": "20", "penalties_count": "20", "penalties_amount": "10",
		"profile_completeness": "15", "document_upload_timeliness": "10", "activity": "15"}
	for m, w := range weights {
		must(t, page.GetByTestId("weight-"+m).Fill(w))
	}
	must(t, expect.Locator(page.GetByTestId("weight-sum")).ToHaveText("90"))
	must(t, expect.Locator(page.GetByTestId("weight-warning")).ToBeVisible())
	must(t, page.GetByTestId("config-save").Click())
	must(t, expect.Locator(page.GetByTestId("config-errors")).ToContainText("90"))
	must(t, expect.Locator(page.GetByTestId("weight-sum")).ToHaveText("90")) // what was typed stays
	app.Screenshots(t, page, "rating-config-refused-en")
	app.CheckA11y(t, page)

	// Fixed: everything on penalties and activity, which the demo's drivers
	// differ in most; the preview shows last month's ranking reordered.
	for m, w := range map[string]string{"document_expiration": "0", "penalties_count": "40", "penalties_amount": "30",
		"profile_completeness": "0", "document_upload_timeliness": "0", "activity": "30"} {
		must(t, page.GetByTestId("weight-"+m).Fill(w))
	}
	must(t, expect.Locator(page.GetByTestId("weight-sum")).ToHaveText("100"))
	must(t, expect.Locator(page.GetByTestId("weight-warning")).ToBeHidden())
	must(t, page.GetByTestId("config-preview").Click())
	must(t, expect.Locator(page.GetByTestId("config-preview-result")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("config-errors")).ToHaveCount(0))
	moved, err := page.GetByTestId("preview-row").EvaluateAll(`rows => rows.filter(r => r.dataset.placeBefore !== r.dataset.placeAfter).length`)
	must(t, err)
	if num(moved) < 2 {
		t.Fatalf("the preview moved %v drivers, want the ranking reordered", moved)
	}
	app.Screenshots(t, page, "rating-config-preview-en")
	app.CheckA11y(t, page)

	// A driver's page: bars of every component, and the 12-month chart.
	var jiri uuid.UUID
	must(t, app.DB.QueryRow(t.Context(), `SELECT id FROM drivers WHERE company_id = $1 AND email = 'jiri.dvorak@demo-transport.cz'`, company).Scan(&jiri))
	type historyRow struct {
		Period string  `json:"rating_period"`
		Score  float64 `json:"total_score"`
	}
	to := time.Date(now.Year(), now.Month()+1, 0, 0, 0, 0, 0, prague).Format(time.DateOnly)
	from := time.Date(now.Year(), now.Month()-11, 1, 0, 0, 0, 0, prague).Format(time.DateOnly)
	history := func() []historyRow {
		var h struct {
			Data []historyRow `json:"data"`
		}
		app.api(t, company, http.MethodGet, "/api/v0/drivers/"+jiri.String()+"/rating/history?from="+from+"&to="+to+"&per_page=12", nil, http.StatusOK, &h)
		return h.Data
	}
	// The current month's stored scores change when the background refresh
	// runs (30 s after the weights above changed): the chart is compared
	// with the API's history read before and after the page, once both
	// reads agree.
	var plotted map[string]float64
	var months []historyRow
	for try := 0; ; try++ {
		before := history()
		_, err = page.Goto(app.URL + "/drivers/" + jiri.String() + "/rating")
		must(t, err)
		must(t, expect.Locator(page.GetByTestId("component")).ToHaveCount(6))
		must(t, expect.Locator(page.GetByTestId("component-bar")).ToHaveCount(6))
		must(t, expect.Locator(page.GetByTestId("history-chart")).ToHaveAttribute("data-months", "12"))
		must(t, expect.Locator(page.GetByTestId("trend")).ToBeVisible())
		plotted, months = chartScores(t, page), history()
		if slices.Equal(before, months) {
			break
		}
		if try == 2 {
			t.Fatalf("the history API changed during each of three page loads: %v, then %v", before, months)
		}
	}
	if len(months) < 6 {
		t.Fatalf("history API: %d months, want the demo's six and more", len(months))
	}
	if len(plotted) != len(months) {
		t.Fatalf("chart plots %d points %v, the history API has %d months", len(plotted), plotted, len(months))
	}
	for _, h := range months {
		got, ok := plotted[h.Period]
		if !ok {
			t.Errorf("month %s of the API is not on the chart (%v)", h.Period, plotted)
			continue
		}
		// Coordinates are written to 0.1 px on a plot of 200 px: 0.05 points.
		if math.Abs(got-h.Score) > 0.1 {
			t.Errorf("month %s: the chart's point is at %.2f, the API says %.2f", h.Period, got, h.Score)
		}
	}
	app.Screenshots(t, page, "rating-driver-en")
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("months-toggle").Click())
	must(t, expect.Locator(page.GetByTestId("history-chart")).ToHaveAttribute("data-months", "24"))

	// The same pages in Czech.
	toCzech(t, page, page.URL())
	must(t, expect.Locator(page.GetByTestId("rating-components")).ToContainText(i18n.CS.T("rating.metric.document_expiration")))
	app.Screenshots(t, page, "rating-driver-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(app.URL + "/ratings?period=" + lastMonth)
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("ranking-title")).ToHaveText(i18n.CS.T("ranking.title")))
	app.Screenshots(t, page, "rating-ranking-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(app.URL + "/ratings/config")
	must(t, err)
	app.Screenshots(t, page, "rating-config-cs")
	app.CheckA11y(t, page)

	// The driver's medical examination expired three days ago: on the phone,
	// the advice names it.
	expired := now.AddDate(0, 0, -3).Format(time.DateOnly)
	app.uploadDocument(t, company, jiri, "medical_examination", expired)
	driver := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "jiri.dvorak@demo-transport.cz", FirstName: "Jiří", LastName: "Dvořák"})
	must(t, driver.GetByText("Menu", playwright.PageGetByTextOptions{Exact: playwright.Bool(true)}).Click())
	must(t, driver.GetByRole(*playwright.AriaRoleLink, playwright.PageGetByRoleOptions{Name: i18n.EN.T("nav.my_rating")}).First().Click())
	must(t, waitURL(driver, app.URL+"/drivers/"+jiri.String()+"/rating"))
	must(t, expect.Locator(driver.GetByTestId("rating-percentile")).ToContainText("better than"))
	must(t, expect.Locator(driver.GetByTestId("rating-percentile")).ToContainText("% of drivers this month"))
	want := i18n.EN.T("rating.advice.doc_expired", "document", i18n.EN.T("doc.type.medical_examination"), "days", "3")
	must(t, expect.Locator(driver.GetByTestId("advice-item").Filter(playwright.LocatorFilterOptions{HasText: want})).ToHaveCount(1))
	advice, err := driver.Locator(`[data-testid=rating-advice] > ol > li`).Count()
	must(t, err)
	if advice < 1 || advice > 2 {
		t.Errorf("the driver sees %d components to improve, want the one or two with the biggest gap", advice)
	}
	fitsPhone(t, driver)
	app.Screenshots(t, driver, "rating-own-phone-en")
	app.CheckA11y(t, driver)
	toCzech(t, driver, driver.URL())
	must(t, expect.Locator(driver.GetByTestId("advice-item").Filter(playwright.LocatorFilterOptions{
		HasText: i18n.CS.T("doc.type.medical_examination")})).ToHaveCount(1))
	app.Screenshots(t, driver, "rating-own-phone-cs")
	app.CheckA11y(t, driver)
}

// chartScores reads the history chart back from its geometry: each
// point's height against the grid lines of 0 and 100, by month.
func chartScores(t *testing.T, page playwright.Page) map[string]float64 {
	t.Helper()
	res, err := page.GetByTestId("history-chart").Evaluate(`svg => {
		const grid = {};
		for (const t of svg.querySelectorAll('text')) {
			if (t.getAttribute('text-anchor') === 'end') grid[t.textContent.trim()] = parseFloat(t.getAttribute('y'));
		}
		return {
			zero: grid['0'], hundred: grid['100'],
			points: [...svg.querySelectorAll('circle')].map(c => [c.dataset.period, parseFloat(c.getAttribute('cy'))]),
		};
	}`, nil)
	must(t, err)
	m := res.(map[string]any)
	zero, hundred := num(m["zero"]), num(m["hundred"])
	if zero <= hundred {
		t.Fatalf("chart grid: 0 at y=%v, 100 at y=%v", zero, hundred)
	}
	out := map[string]float64{}
	for _, p := range m["points"].([]any) {
		pair := p.([]any)
		out[fmt.Sprint(pair[0])] = (zero - num(pair[1])) / (zero - hundred) * 100
	}
	return out
}

func num(v any) float64 {
	switch n := v.(type) {
	case float64:
		return n
	case int:
		return float64(n)
	}
	return math.NaN()
}
