package finance

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestDriverListPagesOnGenericPlans: a driver's transaction and penalty
// lists run on plans PostgreSQL may keep across values (reused plans), so
// the page statements, planned generically as the request role, must read
// no more rows of their table than the page needs and join only the page's
// rows, for a driver with many rows among many drivers. With every filter
// written as optional and the joins before the limit, the generic plan read
// and joined all of the driver's rows (docs/performance.md, "Optional
// filters and reused plans").
func TestDriverListPagesOnGenericPlans(t *testing.T) {
	ctx := context.Background()
	db, url := pgtest.NewWithURL(t, nil)
	company := fixtures.Company(t, db)
	driver := fixtures.Driver(t, db, company)
	others := make([]uuid.UUID, 200)
	for i := range others {
		others[i] = fixtures.Driver(t, db, company)
	}
	// 500 transactions (half of them penalties) for the driver, 20 for
	// each of the others.
	seed := func(d uuid.UUID, n int) {
		t.Helper()
		_, err := db.Exec(ctx, `
			WITH tx AS (
				INSERT INTO finance_transactions (company_id, driver_id, transaction_type, amount, status, transaction_date)
				SELECT $1, $2, CASE WHEN i % 2 = 0 THEN 'penalty' ELSE 'bonus' END,
					CASE WHEN i % 2 = 0 THEN -100 ELSE 100 END, 'pending', DATE '2026-01-01' + i % 300
				FROM generate_series(1, $3::int) i
				RETURNING id, company_id, driver_id, amount, transaction_date, transaction_type)
			INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, severity, amount, currency, incident_date, status, description)
			SELECT company_id, driver_id, id, 'speeding', 'minor', -amount, 'CZK', transaction_date, 'pending', 'Speeding'
			FROM tx WHERE transaction_type = 'penalty'`, company, d, n)
		if err != nil {
			t.Fatalf("seed transactions: %v", err)
		}
	}
	seed(driver, 500)
	for _, d := range others {
		seed(d, 20)
	}
	// As in a company of thousands of drivers, where ANALYZE's sample sees
	// few rows of any one of them: a driver's rows are estimated at a few.
	if _, err := db.Exec(ctx, `
		ALTER TABLE finance_transactions ALTER COLUMN driver_id SET (n_distinct = -0.5);
		ALTER TABLE penalties ALTER COLUMN driver_id SET (n_distinct = -0.5);
		ANALYZE finance_transactions; ANALYZE penalties; ANALYZE users`); err != nil {
		t.Fatal(err)
	}

	requests := pgtest.Requests(t, url, nil)
	conn, err := requests.Acquire(postgres.WithCompany(ctx, company))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	defer conn.Conn().PgConn().Close(ctx) // its plan mode is not the pool's any more

	var sums []Summary
	var txPage []Transaction
	b := &pgx.Batch{}
	queueTransactionList(b, company, driver, TransactionFilter{Page: paging.Request{Number: 1, Size: 20}}, &sums, &txPage)
	var counts []penaltyCounts
	var penPage []Penalty
	queuePenaltyList(b, company, driver, PenaltyFilter{Page: paging.Request{Number: 1, Size: 20}}, &counts, &penPage)

	for _, c := range []struct {
		name, table string
		q           *pgx.QueuedQuery
	}{
		{"transactions", "finance_transactions", b.QueuedQueries[1]},
		{"penalties", "penalties", b.QueuedQueries[3]},
	} {
		const page = 20
		t.Run(c.name, func(t *testing.T) {
			// The planner's choice: the list's index in its order, stopped
			// after the page.
			plan := explainGeneric(t, conn.Conn(), c.q.SQL, c.q.Arguments)
			for _, n := range plan.Plan.Nodes() {
				if n.Relation == c.table && n.Rows() > page {
					t.Errorf("%s on %s read %.0f rows for a page of %d:\n%s", n.Type, n.Relation, n.Rows(), page, plan.text)
				}
			}
			// Whatever plan reads the driver's rows (here every one, the
			// index scans being off), only the page's are joined.
			if _, err := conn.Exec(ctx, `SET enable_indexscan = off`); err != nil {
				t.Fatal(err)
			}
			defer conn.Exec(ctx, `RESET enable_indexscan`)
			plan = explainGeneric(t, conn.Conn(), c.q.SQL, c.q.Arguments)
			for _, n := range plan.Plan.Nodes() {
				if strings.HasSuffix(n.Type, "Join") || n.Type == "Nested Loop" {
					if rows := n.Rows(); rows > page {
						t.Errorf("a %s joined %.0f rows for a page of %d:\n%s", n.Type, rows, page, plan.text)
					}
				}
			}
		})
	}
}

// explained is a statement's plan as it ran, and its JSON.
type explained struct {
	Plan pgtest.PlanNode
	text string
}

// explainGeneric prepares sql on conn, runs it once under EXPLAIN ANALYZE
// with args, and returns its plan.
func explainGeneric(t *testing.T, conn *pgx.Conn, sql string, args []any) explained {
	t.Helper()
	ctx := context.Background()
	name := "plan_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	desc, err := conn.Prepare(ctx, name, sql)
	if err != nil {
		t.Fatalf("prepare: %v\n%s", err, sql)
	}
	// EXECUTE takes no parameters, so the values are written as literals of
	// the types PostgreSQL gave the prepared statement's parameters.
	lits := make([]string, len(args))
	for i, oid := range desc.ParamOIDs {
		typ, ok := conn.TypeMap().TypeForOID(oid)
		if !ok {
			t.Fatalf("parameter %d: unknown type %d", i+1, oid)
		}
		if lits[i], err = postgres.Literal(conn.TypeMap(), oid, typ.Name, args[i]); err != nil {
			t.Fatalf("parameter %d: %v", i+1, err)
		}
	}
	var out []byte
	err = conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE `+name+`(`+strings.Join(lits, ", ")+`)`,
		pgx.QueryExecModeSimpleProtocol).Scan(&out)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	return explained{Plan: pgtest.ParsePlan(t, out), text: string(out)}
}
