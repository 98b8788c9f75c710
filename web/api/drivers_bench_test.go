package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/web/webtest"
)

// drvListCapture keeps the last driver list statement the server ran, to
// EXPLAIN it.
type drvListCapture struct {
	mu   sync.Mutex
	sql  string
	args []any
}

func (c *drvListCapture) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "AS sort_key") && !strings.HasPrefix(d.SQL, "EXPLAIN") {
		c.mu.Lock()
		c.sql, c.args = d.SQL, d.Args
		c.mu.Unlock()
	}
	return ctx
}

func (c *drvListCapture) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// drvSeedLarge creates 10 companies with 2,000 drivers each, every driver
// with its 14 documents, about 60 % of them with a file and a validity
// spread from 60 days past to 340 days ahead (so every status occurs).
func drvSeedLarge(b *testing.B, env *webtest.Env) []uuid.UUID {
	b.Helper()
	var companies []uuid.UUID
	for range 10 {
		companies = append(companies, env.Company("Large", "enterprise"))
	}
	ctx := context.Background()
	steps := []string{
		`INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, status, hire_date, citizenship)
		SELECT c.id, 'DRV-' || lpad(i::text, 4, '0'), i,
			(ARRAY['Jan', 'Petr', 'Jiří', 'Pavel', 'Tomáš', 'Martin', 'Lukáš', 'Eva', 'Jana', 'Marie'])[1 + i % 10],
			(ARRAY['Novák', 'Svoboda', 'Novotný', 'Dvořák', 'Černý', 'Procházka', 'Kučera', 'Veselý', 'Horák', 'Němec',
				'Marek', 'Pospíšil', 'Hájek', 'Jelínek', 'Král', 'Růžička', 'Beneš', 'Fiala', 'Sedláček', 'Doležal'])[1 + (i * 7) % 20],
			'driver' || i || '@company' || c.n || '.example',
			(ARRAY['active', 'active', 'active', 'on_leave', 'inactive', 'terminated'])[1 + i % 6],
			CASE WHEN i % 9 = 0 THEN NULL ELSE date '2015-01-01' + (i * 37) % 3650 END,
			(ARRAY['CZ', 'SK', 'PL', 'UA', 'RO'])[1 + i % 5]
		FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM companies WHERE id = ANY ($1)) c,
			generate_series(1, 2000) AS i`,
		`UPDATE companies SET driver_number_seq = 2000 WHERE id = ANY ($1)`,
		`INSERT INTO driver_documents (company_id, driver_id, type)
		SELECT d.company_id, d.id, t FROM drivers d, unnest($2::text[]) AS t WHERE d.company_id = ANY ($1)`,
		`INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
			storage_path, storage_disk, hash_sha256)
		SELECT dd.company_id, dd.id, 'v1_' || dd.id || '.pdf', 'scan.pdf', 'application/pdf', 1000, 1, 'x/' || dd.id, 'local', repeat('a', 64)
		FROM driver_documents dd WHERE dd.company_id = ANY ($1) AND abs(hashtext(dd.id::text)) % 10 < 6`,
		`UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = CASE WHEN abs(hashtext(f.id::text)) % 6 = 0 THEN NULL
				ELSE current_date + (abs(hashtext(dd.id::text)) % 400 - 60) END
		FROM document_files f WHERE f.document_id = dd.id AND dd.company_id = ANY ($1)`,
	}
	for _, sql := range steps {
		args := []any{companies}
		if strings.Contains(sql, "$2") {
			args = append(args, documents.Types)
		}
		if _, err := env.DB.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
	if _, err := env.DB.Exec(ctx, `VACUUM ANALYZE`); err != nil { // as autovacuum would have
		b.Fatal(err)
	}
	return companies
}

// drvAddCustomTypes gives the company 3 custom document types (one capped
// by the residence permit, so it joins a validity chain beside the work
// permit) with a record for every driver, files and validity spread like
// the built-in ones'.
func drvAddCustomTypes(b *testing.B, env *webtest.Env, company uuid.UUID) {
	b.Helper()
	ctx := context.Background()
	for _, sql := range []string{
		`INSERT INTO document_types (company_id, code, names, capped_by) VALUES
			($1, 'posting_declaration', '{"en": "Posting declaration"}', NULL),
			($1, 'company_training', '{"en": "Company training"}', NULL),
			($1, 'driver_attestation', '{"en": "Driver attestation"}', 'residence_permit')`,
		`INSERT INTO driver_documents (company_id, driver_id, type)
		SELECT d.company_id, d.id, t FROM drivers d, unnest(ARRAY['posting_declaration', 'company_training', 'driver_attestation']) t
		WHERE d.company_id = $1`,
		`INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
			storage_path, storage_disk, hash_sha256)
		SELECT dd.company_id, dd.id, 'v1_' || dd.id || '.pdf', 'scan.pdf', 'application/pdf', 1000, 1, 'x/' || dd.id, 'local', repeat('a', 64)
		FROM driver_documents dd WHERE dd.company_id = $1 AND dd.type IN ('posting_declaration', 'company_training', 'driver_attestation')
			AND abs(hashtext(dd.id::text)) % 10 < 6`,
		`UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = CASE WHEN abs(hashtext(f.id::text)) % 6 = 0 THEN NULL
				ELSE current_date + (abs(hashtext(dd.id::text)) % 400 - 60) END
		FROM document_files f WHERE f.document_id = dd.id AND dd.company_id = $1
			AND dd.type IN ('posting_declaration', 'company_training', 'driver_attestation')`,
		// As autovacuum would have: without it the new rows' pages are not
		// all-visible, and the index-only scans of this company alone
		// fetch the heap (14,000 fetches, twice the time).
		`VACUUM ANALYZE driver_documents`,
	} {
		args := []any{company}
		if !strings.Contains(sql, "$1") {
			args = nil
		}
		if _, err := env.DB.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("custom types: %v", err)
		}
	}
}

// BenchmarkDriverList times GET /api/v0/drivers through the HTTP server on
// a company of 2,000 drivers (10 such companies in the database); the
// "custom types" cases ask the same of a second such company that also has
// 3 custom document types (docs/drivers-and-documents.md), one of them in a
// validity chain, to compare with the case above them in the same run.
//
//	go test -run '^$' -bench DriverList -benchtime 200x ./web/api
//
// With -v it logs the plan of the search statement, which should read the
// trigram index (Bitmap Index Scan on drivers_search_text_trgm_idx).
func BenchmarkDriverList(b *testing.B) {
	capture := &drvListCapture{}
	env := webtest.New(b, webtest.WithTracer(capture))
	companies := drvSeedLarge(b, env)
	drvAddCustomTypes(b, env, companies[1])
	hr := env.As(companies[0], auth.RoleHRManager)
	hrCustom := env.As(companies[1], auth.RoleHRManager)
	get := func(b *testing.B, query string) {
		caller := hr
		if q, ok := strings.CutPrefix(query, "custom:"); ok {
			caller, query = hrCustom, q
		}
		caller.GetOK(b, "/api/v0/drivers?"+query)
	}
	for _, bc := range []struct{ name, query string }{
		{"default", ""},
		{"search", "search=novak"},
		{"document_status=expired", "document_status=expired"},
		{"document_status=expired/3_custom_types", "custom:document_status=expired"},
		{"document_status=valid", "document_status=valid"},
		{"document_status=valid/3_custom_types", "custom:document_status=valid"},
		{"cursor", "limit=20&sort_by=last_name"},
	} {
		ran := false
		b.Run(bc.name, func(b *testing.B) {
			ran = true
			get(b, bc.query) // provisions the user, prepares the statement
			for b.Loop() {
				get(b, bc.query)
			}
		})
		if !ran { // filtered out by -bench: nothing to explain
			continue
		}
		plan := drvExplain(b, env, capture)
		if bc.name == "search" {
			// The list looks the words up with konvoj_driver_search, whose
			// own query must read the trigram index (under the row-level
			// security policies a LIKE in the list could not).
			if !strings.Contains(plan, "konvoj_driver_search") {
				b.Errorf("the search does not go through konvoj_driver_search:\n%s", plan)
			}
			// The function is SECURITY DEFINER: its query runs as the
			// owner, outside the policies, so it is explained as the owner.
			inner := drvExplainOn(context.Background(), b, env.DB, `SELECT d.id FROM drivers d WHERE d.company_id = $1 AND d.deleted_at IS NULL
				AND d.search_text LIKE '%' || konvoj_unaccent(lower($2::text)) || '%'`, companies[0], "novak")
			if !strings.Contains(inner, "drivers_search_text_trgm_idx") {
				b.Errorf("konvoj_driver_search's query does not use the trigram index:\n%s", inner)
			}
		}
		if testing.Verbose() {
			b.Logf("plan of %s:\n%s", bc.name, plan)
		}
	}
}

// BenchmarkDriverFeed times the drivers list's change feed
// (docs/change-feed.md) on the data set of BenchmarkDriverList, with the
// drivers' updated_at spread over the last 30 days: the changes of the last
// day, the first page of everything, and a page further on by cursor. The
// plan must read drivers_company_updated_at_idx (it is logged with -v).
//
//	go test -run '^$' -bench DriverFeed -benchtime 200x ./web/api
func BenchmarkDriverFeed(b *testing.B) {
	capture := &drvListCapture{}
	env := webtest.New(b, webtest.WithTracer(capture))
	companies := drvSeedLarge(b, env)
	ctx := context.Background()
	// The trigger stamps every write with now(); the seed spreads the stamps
	// as months of use would have.
	for _, sql := range []string{
		`ALTER TABLE drivers DISABLE TRIGGER drivers_feed_stamp`,
		`UPDATE drivers SET updated_at = now() - (abs(hashtext(id::text)) % 43200) * interval '1 minute'`,
		`ALTER TABLE drivers ENABLE TRIGGER drivers_feed_stamp`,
		`VACUUM ANALYZE drivers`,
	} {
		if _, err := env.DB.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	hr := env.As(companies[0], auth.RoleHRManager)
	day := url.QueryEscape(time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339))
	var page struct {
		Meta struct {
			NextCursor string `json:"next_cursor"`
		} `json:"meta"`
	}
	hr.Get("/api/v0/drivers?updated_since=2000-01-01T00:00:00Z&limit=100").Expect(http.StatusOK).Decode(&page)
	for _, bc := range []struct{ name, query string }{
		{"last_day", "updated_since=" + day + "&limit=100"},
		{"everything", "updated_since=2000-01-01T00:00:00Z&limit=100&include_deleted=true"},
		{"cursor", "cursor=" + url.QueryEscape(page.Meta.NextCursor) + "&limit=100"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			hr.GetOK(b, "/api/v0/drivers?"+bc.query)
			for b.Loop() {
				hr.GetOK(b, "/api/v0/drivers?"+bc.query)
			}
		})
		plan := drvExplain(b, env, capture)
		if !strings.Contains(plan, "(no list statement ran") && !strings.Contains(plan, "drivers_company_updated_at_idx") {
			b.Errorf("the feed (%s) does not read drivers_company_updated_at_idx:\n%s", bc.name, plan)
		}
		if testing.Verbose() {
			b.Logf("plan of %s:\n%s", bc.name, plan)
		}
	}
}

// drvExplain runs EXPLAIN ANALYZE on the last list statement the server ran.
func drvExplain(b *testing.B, env *webtest.Env, capture *drvListCapture) string {
	capture.mu.Lock()
	sql, args := capture.sql, capture.args
	capture.mu.Unlock()
	if sql == "" {
		return "(no list statement ran: this sub-benchmark was filtered out)"
	}
	return drvExplainSQL(b, env, sql, args...)
}

// drvExplainSQL runs EXPLAIN ANALYZE on a statement with the buffers each
// node read (a count of the work that a loaded machine does not blur,
// unlike its times), as the server runs it: on the request pool, under the
// row-level security policies of the company in the statement's $1.
func drvExplainSQL(b *testing.B, env *webtest.Env, sql string, args ...any) string {
	company, ok := args[0].(uuid.UUID)
	if !ok {
		b.Fatalf("the statement's $1 is %T, not the company's id", args[0])
	}
	return drvExplainOn(postgres.WithCompany(context.Background(), company), b, env.Requests, sql, args...)
}

// drvExplainOn runs EXPLAIN (ANALYZE, BUFFERS) on a statement on the pool
// given.
func drvExplainOn(ctx context.Context, b *testing.B, db *pgxpool.Pool, sql string, args ...any) string {
	rows, err := db.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "+sql, args...)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			b.Fatal(err)
		}
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n")
}
