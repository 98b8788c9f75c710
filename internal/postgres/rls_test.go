package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/seed"
)

// rlsSeedExtras fills, for one company, the tenant tables the scale seed
// leaves empty, so every tenant table holds rows of both companies. A new
// tenant table the test finds empty needs a row here.
const rlsSeedExtras = `
WITH d AS (SELECT id FROM drivers WHERE company_id = $1 ORDER BY internal_seq LIMIT 1),
al AS (
	INSERT INTO audit_logs (company_id, entity_type, entity_id, action)
	SELECT $1, 'driver', d.id, 'created' FROM d RETURNING id
),
fa AS (
	INSERT INTO finance_aggregates (company_id, driver_id, agg_type, reference_date)
	SELECT $1, d.id, 'ytd', current_date FROM d RETURNING id
),
rr AS (
	INSERT INTO rating_runs (company_id, rating_period, drivers_rated)
	VALUES ($1, date_trunc('month', current_date)::date, 1) RETURNING company_id
),
pe AS (
	INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, amount, incident_date, description)
	SELECT f.company_id, f.driver_id, f.id, 'other', 100, f.transaction_date, 'RLS test' FROM finance_transactions f
	WHERE f.company_id = $1 AND NOT EXISTS (SELECT FROM penalties p WHERE p.finance_id = f.id) LIMIT 1 RETURNING id
),
rc AS (
	INSERT INTO rating_configs (company_id, metric_name, weight) VALUES ($1, 'activity', 10)
	ON CONFLICT DO NOTHING RETURNING id
),
ev AS (
	INSERT INTO penalty_evidence (company_id, penalty_id, filename, original_filename, mime_type, size_bytes, storage_path,
		storage_disk, hash_sha256)
	SELECT $1, pe.id, 'e.pdf', 'e.pdf', 'application/pdf', 1, 'x/e.pdf', 'local', repeat('0', 64) FROM pe
	RETURNING id
),
fs AS (
	INSERT INTO form_submissions (company_id, token) VALUES ($1, gen_random_uuid()) RETURNING token
),
dd AS (
	-- The trigger logs the change in document_validity_changes.
	UPDATE driver_documents SET valid_until = DATE '2031-01-31'
	WHERE id = (SELECT id FROM driver_documents WHERE company_id = $1 ORDER BY id LIMIT 1) RETURNING id
),
dr AS (
	INSERT INTO document_rules (company_id, document_type, required, lead_days) VALUES ($1, 'adr_certificate', true, 45)
	ON CONFLICT DO NOTHING RETURNING company_id
),
dty AS (
	INSERT INTO document_types (company_id, code, names) VALUES ($1, 'driver_attestation', '{"en": "Driver attestation"}')
	ON CONFLICT DO NOTHING RETURNING company_id
),
ar AS (
	INSERT INTO alert_runs (company_id, run_date) VALUES ($1, current_date) ON CONFLICT DO NOTHING RETURNING company_id
),
da AS (
	INSERT INTO document_alerts (company_id, driver_id, document_id, document_type, stage, alert_date)
	SELECT dd.company_id, dd.driver_id, dd.id, dd.type, 'missing', current_date FROM driver_documents dd
	WHERE dd.company_id = $1 ORDER BY dd.id LIMIT 1 RETURNING id
),
us AS (SELECT id FROM users WHERE company_id = $1 ORDER BY id LIMIT 1),
nt AS (
	INSERT INTO notifications (company_id, user_id, alert_id, kind) SELECT $1, us.id, da.id, 'document_alert' FROM us, da RETURNING id
),
ns AS (
	INSERT INTO notification_settings (user_id, company_id) SELECT id, $1 FROM us ON CONFLICT DO NOTHING RETURNING user_id
),
tuc AS (
	INSERT INTO transport_unit_changes (company_id, unit_id, previous_is_ready) VALUES ($1, gen_random_uuid(), false) RETURNING id
),
tud AS (
	INSERT INTO transport_unit_days (company_id, day) VALUES ($1, current_date) ON CONFLICT DO NOTHING RETURNING company_id
),
lh AS (
	INSERT INTO live_horizons (company_id, pruned_to) VALUES ($1, 0) ON CONFLICT DO NOTHING RETURNING company_id
),
ob AS (
	INSERT INTO outbox (company_id, kind, recipient, language, subject, text_body, html_body)
	VALUES ($1, 'digest', 'hr@example.test', 'en', 'Subject', 'Text', '<p>HTML</p>') RETURNING id
),
im AS (
	INSERT INTO imports (company_id, user_role, status, dry_run, filename) VALUES ($1, 'admin', 'done', true, 'drivers.csv') RETURNING id
),
wh AS (
	INSERT INTO webhook_endpoints (company_id, url, events, secret)
	VALUES ($1, 'https://hooks.example.test/konvoj', '{*}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id
),
we AS (
	INSERT INTO webhook_events (company_id, type, occurred_at, body) VALUES ($1, 'driver.created', now(), '{}') RETURNING id
),
wd AS (
	INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id) SELECT $1, wh.id, we.id FROM wh, we RETURNING id
),
ws AS (
	INSERT INTO web_sessions (company_id, user_id, token_hash, subject, email, role, created_at, last_seen_at)
	SELECT $1, us.id, sha256(gen_random_uuid()::text::bytea), us.id::text, 'rls@example.test', 'admin', now(), now() FROM us
	RETURNING id
),
po AS (
	INSERT INTO pending_objects (id, company_id, row_table, folder, storage_disk)
	VALUES (gen_random_uuid(), $1, 'document_files', 'x/y', 'local') RETURNING id
),
ik AS (
	INSERT INTO idempotency_keys (company_id, key, method, path, expires_at)
	VALUES ($1, 'rls-test', 'POST', '/api/v0/drivers', now() + interval '1 day') RETURNING company_id
)
SELECT (SELECT count(*) FROM al) + (SELECT count(*) FROM fa) + (SELECT count(*) FROM rr)
	+ (SELECT count(*) FROM pe) + (SELECT count(*) FROM ev) + (SELECT count(*) FROM rc) + (SELECT count(*) FROM dd)
	+ (SELECT count(*) FROM fs)
	+ (SELECT count(*) FROM dr) + (SELECT count(*) FROM ar) + (SELECT count(*) FROM nt) + (SELECT count(*) FROM ns)
	+ (SELECT count(*) FROM ob) + (SELECT count(*) FROM im) + (SELECT count(*) FROM ws) + (SELECT count(*) FROM po) + (SELECT count(*) FROM ik) + (SELECT count(*) FROM wd)`

// The second wall (docs/security.md, "Row-level security"): on the request
// pool, with company A set, no row of company B can be read or changed in any
// table with a company_id, found from the catalog so a new table is covered
// the day it is created; without a company nothing is visible at all.
func TestRowLevelSecurity(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	ids, err := seed.Scale(ctx, system, seed.ScaleOptions{Companies: 2, DriversPerCompany: 3, TransactionsPerDrv: 4, OrdersPerMonth: 1, Months: 2})
	if err != nil {
		t.Fatal(err)
	}
	a, b := ids[0], ids[1]
	for _, c := range ids {
		if _, err := system.Exec(ctx, rlsSeedExtras, c); err != nil {
			t.Fatalf("seed the other tenant tables: %v", err)
		}
		// The scale seed writes snapshots, not their components.
		if _, err := system.Exec(ctx, `INSERT INTO rating_components (snapshot_id, metric_name)
			SELECT id, 'activity' FROM rating_snapshots WHERE company_id = $1`, c); err != nil {
			t.Fatal(err)
		}
	}

	tables := tenantTables(t, system)
	if len(tables) < 15 {
		t.Fatalf("found only %d tables with company_id: %v", len(tables), tables)
	}
	// One connection, so the same session switches between companies.
	requests := pgtest.Requests(t, url+"&pool_max_conns=1", nil)
	asA := postgres.WithCompany(ctx, a)

	t.Run("the request role owns nothing and cannot bypass", func(t *testing.T) {
		var user string
		var super, bypass bool
		var owned int
		err := requests.QueryRow(ctx, `SELECT current_user, r.rolsuper, r.rolbypassrls,
			(SELECT count(*) FROM pg_class c WHERE c.relowner = r.oid)
			FROM pg_roles r WHERE r.rolname = current_user`).Scan(&user, &super, &bypass, &owned)
		if err != nil {
			t.Fatal(err)
		}
		if user != postgres.RequestRole || super || bypass || owned != 0 {
			t.Fatalf("request queries run as %s (superuser %v, bypassrls %v, owns %d relations)", user, super, bypass, owned)
		}
		// RESET ROLE goes back to the connection's role parameter, not to
		// the owner.
		if _, err := requests.Exec(ctx, `RESET ROLE`); err != nil {
			t.Fatal(err)
		}
		if err := requests.QueryRow(ctx, `SELECT current_user`).Scan(&user); err != nil || user != postgres.RequestRole {
			t.Fatalf("after RESET ROLE: %s (%v)", user, err)
		}
	})

	t.Run("every tenant table has row-level security and a policy", func(t *testing.T) {
		for _, table := range append(tables, "companies", "rating_components") {
			var enabled bool
			var policies int
			err := system.QueryRow(ctx, `SELECT c.relrowsecurity, (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)
				FROM pg_class c WHERE c.oid = $1::regclass`, table).Scan(&enabled, &policies)
			if err != nil {
				t.Fatal(err)
			}
			if !enabled || policies == 0 {
				t.Errorf("%s: row-level security %v, %d policies; call konvoj_enable_tenant_rls in its migration", table, enabled, policies)
			}
		}
	})

	for _, table := range tables {
		t.Run(table, func(t *testing.T) {
			var ofA, ofB int
			if err := system.QueryRow(ctx, `SELECT count(*) FILTER (WHERE company_id = $1), count(*) FILTER (WHERE company_id = $2)
				FROM `+table, a, b).Scan(&ofA, &ofB); err != nil {
				t.Fatal(err)
			}
			if ofA == 0 || ofB == 0 {
				t.Fatalf("the seed left %s without rows of both companies (%d, %d): add them to rlsSeedExtras", table, ofA, ofB)
			}
			// A bare SELECT: A's rows, none of B's.
			seen := map[uuid.UUID]int{}
			rows, err := requests.Query(asA, `SELECT company_id FROM `+table)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var c uuid.UUID
				if err := rows.Scan(&c); err != nil {
					t.Fatal(err)
				}
				seen[c]++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if seen[b] != 0 || seen[a] != ofA || len(seen) != 1 {
				t.Fatalf("company A's request sees %v; want only A's %d rows", seen, ofA)
			}
			// An UPDATE and a DELETE by id of one of B's rows change nothing
			// (by the row's physical address for a table without an id).
			key := "id::text"
			var hasID bool
			if err := system.QueryRow(ctx, `SELECT EXISTS (SELECT FROM information_schema.columns
				WHERE table_schema = 'public' AND table_name = $1 AND column_name = 'id')`, table).Scan(&hasID); err != nil {
				t.Fatal(err)
			}
			if !hasID {
				key = "ctid::text"
			}
			var bRow string
			if err := system.QueryRow(ctx, `SELECT `+key+` FROM `+table+` WHERE company_id = $1 LIMIT 1`, b).Scan(&bRow); err != nil {
				t.Fatal(err)
			}
			tag, err := requests.Exec(asA, `UPDATE `+table+` SET company_id = company_id WHERE `+key+` = $1`, bRow)
			if err != nil || tag.RowsAffected() != 0 {
				t.Fatalf("update of B's row: %v rows, %v", tag.RowsAffected(), err)
			}
			tag, err = requests.Exec(asA, `DELETE FROM `+table+` WHERE `+key+` = $1`, bRow)
			if err != nil || tag.RowsAffected() != 0 {
				t.Fatalf("delete of B's row: %v rows, %v", tag.RowsAffected(), err)
			}
			var still int
			if err := system.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE company_id = $1`, b).Scan(&still); err != nil || still != ofB {
				t.Fatalf("B's rows after A's attempts: %d of %d (%v)", still, ofB, err)
			}
			// Nor can A's row be handed over to B.
			_, err = requests.Exec(asA, `UPDATE `+table+` SET company_id = $1 WHERE ctid = (SELECT ctid FROM `+table+` LIMIT 1)`, b)
			if !postgres.IsRowSecurityViolation(err) {
				t.Fatalf("moving A's row to B: %v, want a row-level security violation", err)
			}
		})
	}

	t.Run("companies and rating components", func(t *testing.T) {
		var visible []uuid.UUID
		rows, err := requests.Query(asA, `SELECT id FROM companies`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id uuid.UUID
			_ = rows.Scan(&id)
			visible = append(visible, id)
		}
		if len(visible) != 1 || visible[0] != a {
			t.Fatalf("companies visible to A: %v", visible)
		}
		if tag, err := requests.Exec(asA, `UPDATE companies SET name = 'taken' WHERE id = $1`, b); err != nil || tag.RowsAffected() != 0 {
			t.Fatalf("rename of company B: %d rows, %v", tag.RowsAffected(), err)
		}
		var ofB, total int
		err = requests.QueryRow(asA, `SELECT count(*) FILTER (WHERE s.company_id = $1), count(*) FROM rating_components c
			LEFT JOIN rating_snapshots s ON s.id = c.snapshot_id`, b).Scan(&ofB, &total)
		if err != nil || ofB != 0 || total == 0 {
			t.Fatalf("rating components visible to A: %d of B, %d in all (%v)", ofB, total, err)
		}
	})

	t.Run("no company, no rows; the connection follows the context", func(t *testing.T) {
		count := func(ctx context.Context) (drivers, companies int) {
			t.Helper()
			if err := requests.QueryRow(ctx, `SELECT (SELECT count(*) FROM drivers), (SELECT count(*) FROM companies)`).Scan(&drivers, &companies); err != nil {
				t.Fatal(err)
			}
			return
		}
		for _, step := range []struct {
			ctx                context.Context
			drivers, companies int
		}{
			{asA, 3, 1}, {ctx, 0, 0}, {postgres.WithCompany(ctx, b), 3, 1}, {postgres.WithCompany(ctx, uuid.Nil), 0, 0}, {asA, 3, 1},
		} {
			if d, c := count(step.ctx); d != step.drivers || c != step.companies {
				t.Fatalf("saw %d drivers and %d companies, want %d and %d", d, c, step.drivers, step.companies)
			}
		}
		// An insert for another company is refused too.
		_, err := requests.Exec(asA, `INSERT INTO audit_logs (company_id, entity_type, entity_id, action) VALUES ($1, 'driver', $2, 'created')`, b, uuid.New())
		if !postgres.IsRowSecurityViolation(err) {
			t.Fatalf("insert for B: %v", err)
		}
	})

	t.Run("another company's record answers who owns it, nothing more", func(t *testing.T) {
		var bDriver uuid.UUID
		if err := system.QueryRow(ctx, `SELECT id FROM drivers WHERE company_id = $1 LIMIT 1`, b).Scan(&bDriver); err != nil {
			t.Fatal(err)
		}
		owner, found, err := postgres.CompanyOf(asA, requests, "drivers", bDriver)
		if err != nil || !found || owner != b {
			t.Fatalf("CompanyOf B's driver: %v %v %v", owner, found, err)
		}
		if _, found, err := postgres.CompanyOf(asA, requests, "drivers", uuid.New()); err != nil || found {
			t.Fatalf("CompanyOf an unknown id: %v %v", found, err)
		}
		if _, err := system.Exec(ctx, `UPDATE drivers SET deleted_at = now() WHERE id = $1`, bDriver); err != nil {
			t.Fatal(err)
		}
		if _, found, err := postgres.CompanyOf(asA, requests, "drivers", bDriver); err != nil || found {
			t.Fatalf("CompanyOf a deleted driver: %v %v", found, err)
		}
	})

	t.Run("the driver search sees the request's own company only", func(t *testing.T) {
		// konvoj_driver_search runs past the policies (so the trigram index
		// serves it): it must still refuse a company other than the request's.
		count := func(ctx context.Context, db postgres.DBTX, company uuid.UUID) int {
			t.Helper()
			var n int
			if err := db.QueryRow(ctx, `SELECT count(*) FROM konvoj_driver_search($1, '')`, company).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(asA, requests, a); n == 0 {
			t.Fatal("a request finds no driver of its own company")
		}
		if n := count(asA, requests, b); n != 0 {
			t.Fatalf("a request of A found %d drivers of B", n)
		}
		if n := count(ctx, requests, a); n != 0 {
			t.Fatalf("a request without a company found %d drivers", n)
		}
		if count(ctx, system, b) == 0 {
			t.Fatal("the owner (jobs, commands) finds no driver of the company it names")
		}
	})
}

// tenantTables lists every table with a company_id column.
func tenantTables(t *testing.T, db *pgxpool.Pool) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), `
		SELECT c.table_name FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = 'public' AND c.column_name = 'company_id' AND t.table_type = 'BASE TABLE'
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRequestPoolLimits: the request pool has the configured size
// (DATABASE_MAX_CONNS), cuts every statement off after 30 s, and plans
// without JIT (docs/operations.md); so does the system pool.
func TestRequestPoolLimits(t *testing.T) {
	_, url := pgtest.NewWithURL(t, nil)
	ctx := context.Background()
	pool, err := postgres.OpenRequests(ctx, url, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if pool.Config().MaxConns != 5 {
		t.Errorf("pool size %d, want 5", pool.Config().MaxConns)
	}
	var timeout string
	if err := pool.QueryRow(ctx, "SHOW statement_timeout").Scan(&timeout); err != nil || timeout != "30s" {
		t.Errorf("statement_timeout %q (%v), want 30s", timeout, err)
	}
	system, err := postgres.OpenSystem(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer system.Close()
	for name, p := range map[string]*pgxpool.Pool{"request": pool, "system": system} {
		var jit string
		if err := p.QueryRow(ctx, "SHOW jit").Scan(&jit); err != nil || jit != "off" {
			t.Errorf("%s pool: jit %q (%v), want off", name, jit, err)
		}
	}
}

// TestReusedPlans: a request connection plans every execution with its
// values unless the context asks for reused plans (WithReusedPlans), and the
// mode a request set does not stay for the next request on the connection;
// the company stays set across the switch (docs/operations.md, "Query
// plans").
func TestReusedPlans(t *testing.T) {
	_, url := pgtest.NewWithURL(t, nil)
	ctx := context.Background()
	pool, err := postgres.OpenRequests(ctx, url, nil, 1) // one connection: every request below shares it
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	company := uuid.New()
	plain := postgres.WithCompany(ctx, company)
	reused := postgres.WithReusedPlans(plain)
	const keyed = `SELECT count(*) FROM drivers WHERE id = $1`
	// plansOf runs the keyed statement seven times (PostgreSQL tries five
	// custom plans before it weighs a generic one) and reads how the
	// connection's prepared statement was planned so far.
	plansOf := func(ctx context.Context) (mode string, generic, custom int64) {
		t.Helper()
		for range 7 {
			var n int
			if err := pool.QueryRow(ctx, keyed, uuid.New()).Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		var seen string
		err := pool.QueryRow(ctx, `SELECT current_setting('plan_cache_mode'), current_setting('app.company_id'),
			generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1`, keyed).
			Scan(&mode, &seen, &generic, &custom)
		if err != nil {
			t.Fatal(err)
		}
		if seen != company.String() {
			t.Errorf("company on the connection %q, want %s", seen, company)
		}
		return mode, generic, custom
	}
	if mode, generic, custom := plansOf(plain); mode != "force_custom_plan" || generic != 0 || custom != 7 {
		t.Errorf("plain request: mode %s, %d generic and %d custom plans; want force_custom_plan, 0 and 7", mode, generic, custom)
	}
	if mode, generic, _ := plansOf(reused); mode != "auto" || generic == 0 {
		t.Errorf("request with reused plans: mode %s, %d generic plans; want auto and some", mode, generic)
	}
	mode, genericBefore, _ := plansOf(plain)
	if mode != "force_custom_plan" {
		t.Errorf("the next plain request runs with plan_cache_mode %s, want force_custom_plan", mode)
	}
	if _, generic, _ := plansOf(plain); generic != genericBefore {
		t.Errorf("plain requests after a reused-plan one used %d more generic plans", generic-genericBefore)
	}
}
