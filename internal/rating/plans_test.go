package rating_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// TestCurrentMonthReadKeepsGenericPlans: the current month's read runs on
// reused plans (the API's GET /drivers/{id}/rating), and PostgreSQL keeps a
// generic plan for a statement only when it costs that plan no more than a
// plan made for the values. Were the read's two statements that gather the
// driver's inputs to take the driver as an array, a generic plan would cost
// it as ten drivers, reading the company's uploads of the month: in a
// company that holds most of the rows PostgreSQL would then plan them again
// on every read, and planning costs more than running them
// (docs/performance.md, "Reads of one driver's rating inputs"). On
// one connection, after the five custom plans PostgreSQL always makes
// first, every further read must run on the generic plans, and those must
// read no table for more rows than one driver has (the renewals' generic
// plan, as a join, read the company's uploads of the month).
func TestCurrentMonthReadKeepsGenericPlans(t *testing.T) {
	db, url := pgtest.NewWithURL(t, nil)
	f := ratingtest.New(t, db)
	month, _ := thisMonth()
	f.SeedYear(300, month.First().AddMonths(-8)) // the third versions uploaded this month
	ids := f.ActiveDrivers()[:12]

	requests, err := postgres.OpenRequests(ctx, url, nil, 1) // one connection: its prepared statements are the reads'
	if err != nil {
		t.Fatal(err)
	}
	defer requests.Close()
	reqCtx := postgres.WithReusedPlans(postgres.WithCompany(ctx, f.Company))
	svc := rating.NewService(requests)
	for _, id := range ids {
		if _, err := svc.Read(reqCtx, hrOf(f.Company), id, nil, nil); err != nil {
			t.Fatal(err)
		}
	}

	plans, err := requests.Query(reqCtx, `SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements`)
	if err != nil {
		t.Fatal(err)
	}
	type counts struct {
		name, sql       string
		generic, custom int64
	}
	stmts, err := pgx.CollectRows(plans, func(row pgx.CollectableRow) (counts, error) {
		var c counts
		err := row.Scan(&c.name, &c.sql, &c.generic, &c.custom)
		return c, err
	})
	if err != nil {
		t.Fatal(err)
	}
	company, first, last := f.Company.String(), month.First().String(), month.Last().String()
	for _, want := range []struct{ name, marks string }{
		{"inputs", "array_remove(ARRAY["},
		{"renewals", "document_validity_changes"},
	} {
		found := false
		for _, s := range stmts {
			if !strings.Contains(s.sql, want.marks) {
				continue
			}
			found = true
			if s.custom > 5 || s.generic != int64(len(ids))-s.custom {
				t.Errorf("%s: %d custom and %d generic plans over %d reads; want at most 5 custom, the rest generic:\n%s",
					want.name, s.custom, s.generic, len(ids), s.sql)
			}
			// The kept plan reads the driver's rows, not the company's.
			var plan []byte
			err := requests.QueryRow(reqCtx, `EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) EXECUTE `+s.name+
				`('`+company+`', '`+first+`', '`+last+`', '`+ids[0].String()+`')`, pgx.QueryExecModeSimpleProtocol).Scan(&plan)
			if err != nil {
				t.Fatalf("%s: explain: %v", want.name, err)
			}
			for _, n := range pgtest.ParsePlan(t, plan).Nodes() {
				if n.Relation != "" && n.Rows() > driverRows {
					t.Errorf("%s: the kept plan read %.0f rows of %s (%s), more than one driver has:\n%s", want.name, n.Rows(), n.Relation, n.Type, plan)
				}
			}
		}
		if !found {
			t.Errorf("%s: no prepared statement on the connection", want.name)
		}
	}
}

// driverRows bounds what a read of one driver finds in any one table of
// SeedYear's data: 14 documents, 21 file versions a year, 6 penalties, 10
// orders a month.
const driverRows = 30
