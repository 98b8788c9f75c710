package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/seed"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkDashboard is one signed-in page view: session cookie decoded,
// principal resolved from the database, company read, page rendered.
func BenchmarkDashboard(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	company := env.Company("Acme", "free")
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(company, auth.RoleHRManager, "h@acme.test")
	req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/", nil)
	for b.Loop() {
		webtest.GetOK(b, br.c, req)
	}
}

// BenchmarkDriversPages are the drivers pages of a company of 200 drivers
// (14 documents each): the list (full page; the htmx results alone, as
// live search fetches them) and a driver's page with its documents.
func BenchmarkDriversPages(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	company := env.Company("Acme", "free")
	var id string
	for i := 0; i < 200; i++ {
		id = env.Driver(company, fixtures.Name("Jan", fmt.Sprintf("Novák %03d", i))).String()
	}
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(company, auth.RoleHRManager, "h@acme.test")
	for _, bc := range []struct {
		name, path string
		htmx       bool
	}{
		{"list", "/drivers", false},
		{"search_results", "/drivers?search=novak+15", true},
		{"driver", "/drivers/" + id, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+bc.path, nil)
			if bc.htmx {
				req.Header.Set("HX-Request", "true")
				req.Header.Set("HX-Target", "driver-results")
			}
			for b.Loop() {
				webtest.GetOK(b, br.c, req)
			}
		})
	}
}

// BenchmarkFinanceQueue is the approval queue of a company of 2,000
// drivers with six transactions each over two months (about 4,000
// pending, from the scale data set): the default page (pending, newest
// first, 50 rows, the summary of the whole set), sorted by driver, and one
// driver found by name.
func BenchmarkFinanceQueue(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	ids, err := seed.Scale(context.Background(), env.DB, seed.ScaleOptions{Companies: 1, DriversPerCompany: 2000, TransactionsPerDrv: 6, OrdersPerMonth: 1, Months: 2})
	if err != nil {
		b.Fatal(err)
	}
	var pending int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM finance_transactions WHERE company_id = $1 AND status = 'pending'`, ids[0]).Scan(&pending); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d pending transactions", pending)
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(ids[0], auth.RoleAccountant, "acc@scale.test")
	queues := map[string]string{"pending": "/finance", "by_driver": "/finance?sort_by=driver", "one_driver": "/finance?driver=DRV-0015&status=all"}
	for _, name := range []string{"pending", "by_driver", "one_driver"} {
		req, _ := http.NewRequest(http.MethodGet, env.Server.URL+queues[name], nil)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				webtest.GetOK(b, br.c, req)
			}
		})
	}
}

// BenchmarkHomePages are the home pages of a company of 2,000 drivers
// (14 documents each with files and validity dates, transactions, pay
// periods and penalties, from the scale data set): HR's (documents by
// alert stage, drivers by document status, drivers not ready, open
// disputes) and the accountant's (pending and approved money, periods to
// close, the month's totals).
func BenchmarkHomePages(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	ids, err := seed.Scale(context.Background(), env.DB, seed.ScaleOptions{Companies: 1, DriversPerCompany: 2000, TransactionsPerDrv: 6, OrdersPerMonth: 1, Months: 2})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		role auth.Role
	}{{"hr", auth.RoleHRManager}, {"accountant", auth.RoleAccountant}} {
		b.Run(bc.name, func(b *testing.B) {
			br := newBrowser(b, env.Server.URL)
			br.devSignIn(ids[0], bc.role, string(bc.role)+"@scale.test")
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/", nil)
			for b.Loop() {
				webtest.GetOK(b, br.c, req)
			}
		})
	}
}

// BenchmarkRatingPages are the rating pages of a company of 2,000 drivers
// with a year of documents, penalties and orders (the scale data set),
// the current and the previous month stored: the ranking (the whole
// month read, sorted, the histogram, the first 50 rows), sorted by change,
// searched by name, and one driver's rating page (the current month
// computed at read time, 12 months of history).
func BenchmarkRatingPages(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	ctx := context.Background()
	ids, err := seed.Scale(ctx, env.DB, seed.ScaleOptions{Companies: 1, DriversPerCompany: 2000, TransactionsPerDrv: 1, OrdersPerMonth: 2, Months: 2})
	if err != nil {
		b.Fatal(err)
	}
	svc := rating.NewService(env.DB)
	var current rating.Period
	if current, _, err = svc.RefreshCurrentMonth(ctx, ids[0]); err != nil {
		b.Fatal(err)
	}
	if _, err := svc.RateCompany(ctx, ids[0], current.Prev()); err != nil {
		b.Fatal(err)
	}
	if _, err := env.DB.Exec(ctx, `VACUUM ANALYZE rating_snapshots`); err != nil {
		b.Fatal(err)
	}
	var driver string
	if err := env.DB.QueryRow(ctx, `SELECT driver_id FROM rating_snapshots WHERE company_id = $1 LIMIT 1`, ids[0]).Scan(&driver); err != nil {
		b.Fatal(err)
	}
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(ids[0], auth.RoleHRManager, "hr@scale.test")
	for _, bc := range []struct{ name, path string }{
		{"ranking", "/ratings"},
		{"ranking_by_change", "/ratings?sort_by=score_change"},
		{"ranking_search", "/ratings?q=novak"},
		{"driver", "/drivers/" + driver + "/rating"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+bc.path, nil)
			for b.Loop() {
				webtest.GetOK(b, br.c, req)
			}
		})
	}
}

// BenchmarkMonthEndPage is the month-end page of a company of 2,000
// drivers with a year of pay periods (24 transactions each, from the
// scale data set): last month, the default (the summary of the month's
// 2,000 periods with their pending counts, the first 100 rows), and its
// last page.
func BenchmarkMonthEndPage(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	ids, err := seed.Scale(context.Background(), env.DB, seed.ScaleOptions{Companies: 1, DriversPerCompany: 2000, TransactionsPerDrv: 24, OrdersPerMonth: 1, Months: 12})
	if err != nil {
		b.Fatal(err)
	}
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(ids[0], auth.RoleAccountant, "acc@scale.test")
	for _, bc := range []struct{ name, path string }{
		{"last_month", "/finance/month-end"},
		{"last_page", "/finance/month-end?page=20"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+bc.path, nil)
			for b.Loop() {
				webtest.GetOK(b, br.c, req)
			}
		})
	}
}

// BenchmarkReadinessBoard is the dispatcher's home page with the
// readiness board of a company of 4,000 drivers of whom about 2,000 are
// in a transport unit (the scale data set, with their drivers', vehicles'
// and trailers' documents): the whole page (the board's first 500 units
// grouped by readiness with their reasons in words, the free drivers,
// vehicles and trailers, the counts below), and the units part alone, as
// a live event fetches it.
//
//	go test -run '^$' -bench ReadinessBoard -benchtime 20x ./web/pages
func BenchmarkReadinessBoard(b *testing.B) {
	env := webtest.New(b, webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true }))
	ctx := context.Background()
	ids, err := seed.Scale(ctx, env.DB, seed.ScaleOptions{Companies: 1, DriversPerCompany: 4000, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1})
	if err != nil {
		b.Fatal(err)
	}
	var n int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM transport_units WHERE company_id = $1 AND unassigned_at IS NULL`, ids[0]).Scan(&n); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d active units", n)
	br := newBrowser(b, env.Server.URL)
	br.devSignIn(ids[0], auth.RoleDispatcher, "dispatch@scale.test")
	for _, bc := range []struct {
		name, path string
		htmx       bool
	}{{"home", "/", false}, {"units_part", "/units/board", true}, {"search", "/units/board?search=drv-0015", true}} {
		b.Run(bc.name, func(b *testing.B) {
			req, _ := http.NewRequest(http.MethodGet, env.Server.URL+bc.path, nil)
			if bc.htmx {
				req.Header.Set("HX-Request", "true")
			}
			for b.Loop() {
				webtest.GetOK(b, br.c, req)
			}
			b.ReportMetric(float64(n), "units")
		})
	}
}
