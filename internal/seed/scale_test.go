package seed_test

import (
	"context"
	"testing"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
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
