package seed_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/seed"
)

// TestScaleCompanyHasItsDerivedRows: the scale seed loads its rows with
// the per-row triggers off (session_replication_role), but the company's
// own triggers must still have run: without its document facts row every
// drivers list came back empty and every driver read answered 404, and
// `make bench` failed on a fresh machine.
func TestScaleCompanyHasItsDerivedRows(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 2, DriversPerCompany: 3, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		var facts, configs int
		var required []string
		err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM company_document_facts WHERE company_id = $1),
				(SELECT count(*) FROM rating_configs WHERE company_id = $1),
				(SELECT required FROM company_document_facts WHERE company_id = $1)`, id).Scan(&facts, &configs, &required)
		if err != nil {
			t.Fatal(err)
		}
		if facts != 1 || len(required) == 0 {
			t.Errorf("company %s: %d document facts rows, required %v; want 1 row naming the required types", id, facts, required)
		}
		if configs == 0 {
			t.Errorf("company %s has no rating configuration", id)
		}
	}
}

// TestScaleSnapshotsCarryComponents: the benchmark reads a past month's
// stored rating, so every seeded snapshot must carry what the monthly job
// stores, not an empty object: the six metrics, each a component of the
// API's shape, whose contributions add up to the total.
func TestScaleSnapshotsCarryComponents(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 1, DriversPerCompany: 3, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT total_score::text, components FROM rating_snapshots WHERE company_id = $1`, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	snapshots, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (snapshot, error) {
		var s snapshot
		return s, r.Scan(&s.total, &s.components)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(snapshots) == 0 {
		t.Fatal("no snapshots seeded")
	}
	for _, s := range snapshots {
		if len(s.components) != len(rating.Metrics) {
			t.Fatalf("total %s: %d components, want the %d metrics: %v", s.total, len(s.components), len(rating.Metrics), s.components)
		}
		sum := decimal.Zero
		for _, m := range rating.Metrics {
			c, ok := s.components[m]
			if !ok || !c.Applicable || c.Details == "" || c.RawValue == nil {
				t.Fatalf("total %s: component %s is %+v", s.total, m, c)
			}
			sum = sum.Add(decimal.RequireFromString(c.Contribution.String()))
		}
		if total := decimal.RequireFromString(s.total); !sum.Round(2).Equal(total) {
			t.Errorf("contributions add up to %s, total %s", sum, total)
		}
	}
}

type snapshot struct {
	total      string
	components map[string]rating.ComponentView
}
