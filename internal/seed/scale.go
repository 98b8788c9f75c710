// Package seed fills a database with data: the demo company a newcomer sees
// after `make run`, and the large synthetic set the benchmarks run on.
package seed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres"
)

// ScaleOptions sizes the synthetic data set.
type ScaleOptions struct {
	Companies          int
	DriversPerCompany  int
	TransactionsPerDrv int // default 500
	OrdersPerMonth     int // per driver, default 8
	Months             int // history length, default 12
	// Today anchors every date (default: today in UTC).
	Today time.Time
	// Log receives progress lines.
	Log func(format string, args ...any)
}

// ScaleMarker is stored in companies.settings so a second run finds the set.
const ScaleMarker = "scale"

// ScaleRevision names the shape of the generated data: a change to what
// Scale generates raises it, and the benchmark, which keeps one database
// per set and revision, seeds a new one instead of measuring the old data.
const ScaleRevision = 4

// Scale generates the synthetic set inside PostgreSQL with set-based SQL
// (generate_series), one transaction per company. Companies already seeded
// (found by their name and marker) are kept, so the command is resumable and
// idempotent. It returns the ids of all scale companies.
func Scale(ctx context.Context, db *pgxpool.Pool, o ScaleOptions) ([]uuid.UUID, error) {
	if o.TransactionsPerDrv == 0 {
		o.TransactionsPerDrv = 500
	}
	if o.OrdersPerMonth == 0 {
		o.OrdersPerMonth = 8
	}
	if o.Months == 0 {
		o.Months = 12
	}
	if o.Today.IsZero() {
		o.Today = time.Now().UTC()
	}
	o.Today = time.Date(o.Today.Year(), o.Today.Month(), o.Today.Day(), 0, 0, 0, 0, time.UTC)
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	var super bool
	if err := db.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil {
		return nil, fmt.Errorf("check role: %w", err)
	}
	// Two companies at a time: generation is CPU-bound in PostgreSQL and
	// this machine has two cores.
	ids := make([]uuid.UUID, o.Companies)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2)
	for i := 1; i <= o.Companies; i++ {
		g.Go(func() error {
			id, err := scaleOne(gctx, db, i, super, o)
			ids[i-1] = id
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	// VACUUM as well as ANALYZE: autovacuum would get to the new rows
	// later, and until the visibility map is set an index-only scan
	// fetches every heap row anyway, so the first benchmarks after a seed
	// measured a database no production one looks like.
	if _, err := db.Exec(ctx, `VACUUM (ANALYZE)`); err != nil {
		return nil, fmt.Errorf("vacuum: %w", err)
	}
	return ids, nil
}

func scaleOne(ctx context.Context, db *pgxpool.Pool, i int, super bool, o ScaleOptions) (uuid.UUID, error) {
	name := fmt.Sprintf("Scale Transport %03d s.r.o.", i)
	var id uuid.UUID
	err := db.QueryRow(ctx, `SELECT id FROM companies WHERE name = $1 AND settings->>'seed' = $2`, name, ScaleMarker).Scan(&id)
	if err == nil {
		o.Log("company %d/%d already seeded (%s)", i, o.Companies, id)
		return id, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, fmt.Errorf("find scale company %d: %w", i, err)
	}
	start := time.Now()
	err = postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		var err error
		id, err = scaleCompany(ctx, tx, name, i, super, o)
		return err
	})
	if err != nil {
		return id, fmt.Errorf("seed scale company %d: %w", i, err)
	}
	o.Log("company %d/%d seeded in %s (%s)", i, o.Companies, time.Since(start).Round(time.Millisecond), id)
	return id, nil
}

func scaleCompany(ctx context.Context, tx pgx.Tx, name string, n int, super bool, o ScaleOptions) (uuid.UUID, error) {
	var id uuid.UUID
	// The company row with its triggers on: they write the company's
	// default rating configuration and its document facts, which every
	// drivers list and driver read joins.
	if err := tx.QueryRow(ctx, `
		INSERT INTO companies (name, subscription_tier, settings) VALUES ($1, 'enterprise', jsonb_build_object('seed', $2::text))
		RETURNING id`, name, ScaleMarker).Scan(&id); err != nil {
		return id, err
	}
	if super {
		// The rest is generated consistent; skipping the per-row foreign
		// key triggers makes the load several times faster.
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return id, err
		}
	}
	today := o.Today
	month0 := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	domain := fmt.Sprintf("c%03d.scale.test", n)
	steps := []struct {
		what string
		sql  string
		args []any
	}{
		// Ordered ids for the big tables: appending to the primary-key
		// index is several times faster than inserting random UUIDs.
		{"id function", `
			CREATE OR REPLACE FUNCTION pg_temp.konvoj_seed_uuid(company int, tbl int, n bigint) RETURNS uuid
			LANGUAGE sql IMMUTABLE AS $f$
				SELECT (lpad(to_hex(company), 8, '0') || '-' || lpad(to_hex(tbl), 4, '0') || '-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid
			$f$`, nil},
		// A stored snapshot's components object, of the size and shape
		// the monthly job writes (six metrics with their details), every
		// metric at the snapshot's total: a read of a past month carries
		// what a real one does (about 1.3 kB), not an empty object.
		{"components function", `
			CREATE OR REPLACE FUNCTION pg_temp.konvoj_seed_components(score numeric, m date) RETURNS jsonb
			LANGUAGE sql IMMUTABLE AS $f$
				SELECT jsonb_object_agg(metric, jsonb_build_object('score', score, 'weight', weight,
					'contribution', round(score * weight / 100, 4), 'details', details, 'raw_value', raw, 'applicable', true))
				FROM (VALUES
					('document_expiration', 30, format('%s of 7 required documents expire within 30 days, %s expired or missing (as of %s).',
						(100 - score)::int % 3, (100 - score)::int % 2, (m + interval '1 month' - interval '1 day')::date), round(score, 4)),
					('penalties_count', 20, format('%s penalties with an incident in %s (limit 5).', ((100 - score) / 20)::int, to_char(m, 'YYYY-MM')),
						((100 - score) / 20)::int::numeric),
					('penalties_amount', 20, format('Penalties with an incident in %s total %s CZK (limit 10000.00 CZK).', to_char(m, 'YYYY-MM'),
						round((100 - score) * 100, 2)), round((100 - score) * 100, 2)),
					('profile_completeness', 10, '17 of 20 profile fields filled; missing: middle_name, rodne_cislo, swift.', 17::numeric),
					('document_upload_timeliness', 10, format('1 renewal in %s, on average 3.50 days after the previous expiry (0 points at 30 days).',
						to_char(m, 'YYYY-MM')), 3.5),
					('activity', 10, format('8 orders of 8 expected in %s.', to_char(m, 'YYYY-MM')), 8::numeric)
				) c(metric, weight, details, raw)
			$f$`, nil},
		// A user's subject is its id as text: the id a token with that
		// subject resolves to (auth.Identity.UserID).
		{"users", `
			INSERT INTO users (id, company_id, external_id, email, first_name, last_name, role)
			SELECT u, $1, u::text, r || '@' || $2, 'Scale', r, r
			FROM (SELECT gen_random_uuid() AS u, r FROM unnest(ARRAY['admin','hr_manager','accountant','dispatcher']) r) x`,
			[]any{id, domain}},
		{"offices", `
			INSERT INTO offices (company_id, name, country_code, city, is_headquarters)
			VALUES ($1, 'Praha', 'CZ', 'Praha', true), ($1, 'Ostrava', 'CZ', 'Ostrava', false)`,
			[]any{id}},
		{"drivers", `
			INSERT INTO drivers (company_id, office_id, internal_number, internal_seq, first_name, last_name, email, phone,
				citizenship, status, hire_date, birth_date, registration_address, bank_country, iban, contract_from,
				contract_indefinite, work_location)
			SELECT $1, (SELECT array_agg(id ORDER BY is_headquarters DESC) FROM offices WHERE company_id = $1)[1 + s % 2],
				'DRV-' || lpad(s::text, greatest(4, length(s::text)), '0'), s,
				fn[1 + (s * 7) % array_length(fn, 1)], ln[1 + (s * 13) % array_length(ln, 1)],
				'driver' || s || '@' || $3, '+4207' || lpad(((s * 7919) % 100000000)::text, 8, '0'),
				(ARRAY['CZ','SK','PL','UA','RO'])[1 + s % 5],
				CASE WHEN s % 50 = 0 THEN 'terminated' WHEN s % 33 = 0 THEN 'inactive' WHEN s % 20 = 0 THEN 'on_leave' ELSE 'active' END,
				$4::date - (30 + (s * 37) % 2500), $4::date - (8000 + (s * 53) % 9000),
				'Hlavní ' || (1 + s % 200) || ', Praha', 'CZ', NULL, $4::date - (30 + (s * 37) % 2500), true, 'Praha'
			FROM generate_series(1, $2::int) s,
				(SELECT ARRAY['Jan','Petr','Jiří','Tomáš','Lukáš','Michal','Ondřej','Marek','Piotr','Tomasz','Paweł','Krzysztof',
					'Andrii','Oleksandr','Dmytro','Serhii','Ion','Andrei','Mihai','Gheorghe','Ján','Marián','Dušan','Ľubomír'] AS fn,
					ARRAY['Novák','Svoboda','Novotný','Dvořák','Černý','Procházka','Kučera','Veselý','Horák','Němec',
					'Kowalski','Wiśniewski','Wójcik','Kamiński','Lewandowski','Shevchenko','Kovalenko','Bondarenko','Tkachenko',
					'Popescu','Ionescu','Popa','Rădulescu','Horváth','Kováč','Tóth','Nagy','Baláž'] AS ln) names`,
			[]any{id, o.DriversPerCompany, domain, today}},
		{"driver numbers", `UPDATE companies SET driver_number_seq = $2 WHERE id = $1`, []any{id, o.DriversPerCompany}},
		{"documents", `
			INSERT INTO driver_documents (company_id, driver_id, type, number, country, valid_from, valid_until)
			SELECT $1, d.id, t.type, upper(left(t.type, 2)) || d.internal_seq || '-' || t.ord, d.citizenship,
				$3::date - 400,
				CASE WHEN (d.internal_seq + t.ord) % 9 = 0 THEN NULL
					ELSE $3::date + (((d.internal_seq * 31 + t.ord * 17) % 760) - 60)::int END
			FROM drivers d CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS t(type, ord)
			WHERE d.company_id = $1`,
			[]any{id, documents.Types, today}},
		// The fleet in the demo's proportions: a vehicle per driver (four
		// trucks to one light vehicle) and nine trailers to ten drivers,
		// with plates and VINs unique in the company.
		{"vehicles", `
			INSERT INTO vehicles (company_id, office_id, internal_number, internal_seq, type, status, assignment_mode,
				plate_number, vin, make, model, year, fuel_type, emission_class, color, gross_weight_kg, payload_kg, axles,
				odometer_km, first_registration_date, tags)
			SELECT $1, (SELECT array_agg(id ORDER BY is_headquarters DESC) FROM offices WHERE company_id = $1)[1 + s % 2],
				'VEH-' || lpad(s::text, greatest(4, length(s::text)), '0'), s, x.type,
				CASE WHEN s % 41 = 0 THEN 'sold' WHEN s % 23 = 0 THEN 'inactive' WHEN s % 17 = 0 THEN 'in_service' ELSE 'active' END,
				CASE WHEN x.type = 'pkv' THEN (ARRAY['assigned','pool','unassigned'])[1 + (s / 5) % 3] END,
				(1 + (s - 1) / 10000) || 'AC ' || lpad(((s - 1) % 10000)::text, 4, '0'),
				'TMBV' || lpad(upper(to_hex(s)), 13, '0'),
				CASE WHEN x.type = 'lkv' THEN (ARRAY['Scania','Volvo','DAF','MAN','Mercedes-Benz','Iveco'])[1 + s % 6]
					ELSE (ARRAY['Škoda','Volkswagen','Ford','Renault'])[1 + s % 4] END,
				CASE WHEN x.type = 'lkv' THEN (ARRAY['R 450','FH 500','XF 480','TGX 18.470','Actros 1845','S-Way 490'])[1 + s % 6]
					ELSE (ARRAY['Octavia','Transporter','Transit','Master'])[1 + s % 4] END,
				2012 + s % 13,
				CASE WHEN x.type = 'lkv' THEN 'diesel' ELSE (ARRAY['diesel','petrol','hybrid','electric'])[1 + s % 4] END,
				CASE WHEN x.type = 'pkv' AND s % 4 = 3 THEN NULL WHEN s % 13 = 12 THEN 'EURO5' ELSE 'EURO6' END,
				(ARRAY['bílá','stříbrná','modrá','červená','černá'])[1 + s % 5],
				CASE WHEN x.type = 'lkv' THEN 18000 ELSE 3500 END, CASE WHEN x.type = 'lkv' THEN 11000 ELSE 1200 END,
				CASE WHEN x.type = 'lkv' THEN 2 + s % 2 ELSE 2 END, 15000 + (s * 7919) % 900000,
				make_date(2012 + s % 13, 1 + s % 12, 1 + s % 28),
				CASE WHEN x.type = 'lkv' AND s % 10 = 0 THEN ARRAY['adr'] ELSE '{}' END
			FROM generate_series(1, $2::int) s, LATERAL (SELECT CASE WHEN s % 5 = 0 THEN 'pkv' ELSE 'lkv' END AS type) x`,
			[]any{id, o.DriversPerCompany}},
		{"trailers", `
			INSERT INTO trailers (company_id, office_id, internal_number, internal_seq, type, status, plate_number, vin, make, model,
				year, has_refrigeration, temperature_min, temperature_max, volume_m3, color, gross_weight_kg, payload_kg, axles,
				first_registration_date, tags)
			SELECT $1, (SELECT array_agg(id ORDER BY is_headquarters DESC) FROM offices WHERE company_id = $1)[1 + s % 2],
				'TRL-' || lpad(s::text, greatest(4, length(s::text)), '0'), s, x.type,
				CASE WHEN s % 29 = 0 THEN 'inactive' WHEN s % 19 = 0 THEN 'in_service' ELSE 'active' END,
				(1 + (s - 1) / 10000) || 'PB ' || lpad(((s - 1) % 10000)::text, 4, '0'),
				'WSMT' || lpad(upper(to_hex(s)), 13, '0'),
				(ARRAY['Schmitz Cargobull','Krone','Kögel','Wielton'])[1 + s % 4],
				(ARRAY['S.CS','Profi Liner','Cargo','NS 3'])[1 + s % 4],
				2012 + s % 13, x.type = 'frigo',
				CASE WHEN x.type = 'frigo' THEN -25.00 END, CASE WHEN x.type = 'frigo' THEN 12.00 END,
				CASE x.type WHEN 'mega' THEN 100.00 WHEN 'frigo' THEN 86.00 WHEN 'van' THEN 88.00 ELSE 90.00 END,
				(ARRAY['bílá','šedá','modrá'])[1 + s % 3], 39000, 27000, 3,
				make_date(2012 + s % 13, 1 + s % 12, 1 + s % 28),
				CASE WHEN x.type = 'frigo' THEN ARRAY['frigo'] ELSE '{}' END || CASE WHEN s % 11 = 0 THEN ARRAY['adr'] ELSE '{}' END
			FROM generate_series(1, ($2::int * 9 + 9) / 10) s,
				LATERAL (SELECT (ARRAY['standard','tautliner','mega','frigo','standard','tautliner','van','frigo'])[1 + s % 8] AS type) x`,
			[]any{id, o.DriversPerCompany}},
		{"fleet numbers", `UPDATE companies SET vehicle_number_seq = $2::int, trailer_number_seq = ($2::int * 9 + 9) / 10 WHERE id = $1`,
			[]any{id, o.DriversPerCompany}},
		// Statistics of the rows so far: the planner takes tables loaded in
		// this transaction for empty otherwise, and the joins below (a
		// truck with its driver and trailer) ran as nested loops over
		// whole tables.
		{"statistics", `ANALYZE drivers, vehicles, trailers`, nil},
		// The keys that make plates and VINs unique across vehicles and
		// trailers (migrations/00049_fleet_identifiers.sql), which the
		// records' trigger writes when triggers are on.
		{"fleet identifiers", `
			INSERT INTO fleet_identifiers (company_id, kind, key, holder_type, holder_id)
			SELECT company_id, k.kind, k.key, h.holder, id FROM (
				SELECT company_id, id, 'vehicle' AS holder, plate_number, vin FROM vehicles WHERE company_id = $1
				UNION ALL SELECT company_id, id, 'trailer', plate_number, vin FROM trailers WHERE company_id = $1) h,
				LATERAL (VALUES ('plate', konvoj_plate_key(h.plate_number)), ('vin', upper(h.vin))) k(kind, key)
			WHERE k.key IS NOT NULL
			ON CONFLICT DO NOTHING`,
			[]any{id}},
		// Each record's documents of the types that apply to it, dated
		// as the drivers' are; a type without expiry has no date.
		{"fleet documents", `
			INSERT INTO driver_documents (company_id, holder_type, vehicle_id, trailer_id, type, number, country, valid_from, valid_until)
			SELECT $1, h.holder, h.vehicle_id, h.trailer_id, b.type, upper(left(b.type, 2)) || h.internal_seq || '-' || b.ord, 'CZ',
				$2::date - 400,
				CASE WHEN NOT b.has_expiry OR (h.internal_seq + b.ord) % 11 = 0 THEN NULL
					ELSE $2::date + (((h.internal_seq * 29 + b.ord * 13) % 760) - 60)::int END
			FROM (
				SELECT 'vehicle' AS holder, id AS vehicle_id, NULL::uuid AS trailer_id, type, internal_seq FROM vehicles WHERE company_id = $1
				UNION ALL SELECT 'trailer', NULL, id, type, internal_seq FROM trailers WHERE company_id = $1
			) h
			CROSS JOIN LATERAL konvoj_builtin_document_types(h.holder) b
			WHERE konvoj_fleet_type_applies(h.holder, h.type, b.type)`,
			[]any{id, today}},
		// Every second driver (the even numbers) on the road, unless
		// terminated: with the vehicle of its number, or of the number
		// before when that one is sold or out of use, and a truck with the
		// trailer of its number when that one is not out of use (units of
		// every state: in service, on leave, documents expired or missing).
		{"transport units", `
			INSERT INTO transport_units (company_id, driver_id, vehicle_id, trailer_id, assigned_at)
			SELECT $1, d.id, v.id, CASE WHEN v.type = 'lkv' THEN t.id END, now() - ((d.internal_seq % 300) || ' days')::interval
			FROM drivers d
			CROSS JOIN LATERAL (
				SELECT v.id, v.type FROM vehicles v
				WHERE v.company_id = d.company_id AND v.internal_seq IN (d.internal_seq, d.internal_seq - 1)
					AND v.status NOT IN ('sold', 'inactive')
				ORDER BY v.internal_seq DESC LIMIT 1
			) v
			LEFT JOIN trailers t ON t.company_id = d.company_id AND t.internal_seq = d.internal_seq AND t.status <> 'inactive'
			WHERE d.company_id = $1 AND d.internal_seq % 2 = 0 AND d.status <> 'terminated' AND d.deleted_at IS NULL`,
			[]any{id}},
		// document_effective and driver_expiry too: the files below update
		// every document's file, and the triggers read both per driver.
		{"statistics", `ANALYZE driver_documents, document_effective, driver_expiry, fleet_expiry, transport_units`, nil},
		{"files", `
			WITH f AS (
				INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
					is_current, storage_path, storage_disk, hash_sha256, uploaded_at)
				SELECT $1, x.id, x.fname, x.type || '.pdf', 'application/pdf', 50000 + abs(hashtext(x.id::text)) % 900000, 1, true,
					$1 || '/' || x.holder_id || '/' || x.type || '/' || x.fname, 'local',
					md5(x.id::text) || md5(x.type), now() - ((abs(hashtext(x.id::text)) % 300) || ' days')::interval
				FROM (SELECT dd.*, 'v1_' || gen_random_uuid() || '.pdf' AS fname FROM driver_documents dd
					WHERE dd.company_id = $1 AND abs(hashtext(dd.id::text)) % 6 <> 0) x
				RETURNING id, document_id)
			UPDATE driver_documents dd SET current_file_id = f.id FROM f WHERE dd.id = f.document_id`,
			[]any{id}},
		// The units' readiness from the documents and statuses above
		// (the triggers that keep it are off while the set loads).
		{"unit readiness", `SELECT konvoj_refresh_units($1, NULL)`, []any{id}},
		{"periods", `
			INSERT INTO finance_periods (company_id, driver_id, period_start, period_end, status, currency)
			SELECT $1, d.id, m::date, (m + interval '1 month - 1 day')::date,
				CASE WHEN m < $2::date - interval '1 month' THEN 'paid' ELSE 'open' END, 'CZK'
			FROM drivers d, generate_series($2::date - ($3::int - 1) * interval '1 month', $2::date, interval '1 month') m
			WHERE d.company_id = $1`,
			[]any{id, month0, o.Months}},
		{"transactions", `
			INSERT INTO finance_transactions (id, company_id, driver_id, period_id, transaction_type, category, amount, currency,
				status, transaction_date, payment_date, description, created_by)
			SELECT pg_temp.konvoj_seed_uuid($6, 1, row_number() OVER ()), $1, x.driver_id, x.period_id, x.type, x.category, x.amount, 'CZK',
				CASE WHEN x.pstatus = 'paid' THEN 'paid' ELSE (ARRAY['pending','approved','paid'])[1 + x.i % 3] END,
				least(x.period_start + (x.i * 7) % 28, $5::date),
				CASE WHEN x.pstatus = 'paid' THEN x.period_end END,
				x.type || ' ' || x.i, (SELECT id FROM users WHERE company_id = $1 AND role = 'accountant' LIMIT 1)
			FROM (
				SELECT p.driver_id, p.id AS period_id, p.status AS pstatus, p.period_start, p.period_end, i,
					CASE t WHEN 0 THEN 'base_salary' WHEN 1 THEN 'business_trip' WHEN 2 THEN 'business_trip'
						WHEN 3 THEN 'overtime' WHEN 4 THEN 'bonus' WHEN 5 THEN 'deduction' WHEN 6 THEN 'penalty'
						ELSE 'allowance' END AS type,
					CASE t WHEN 0 THEN 'salary' WHEN 1 THEN 'business_trip' WHEN 2 THEN 'business_trip'
						WHEN 4 THEN 'performance_bonus' WHEN 6 THEN 'penalty' ELSE NULL END AS category,
					(CASE t WHEN 0 THEN 35000 + h % 10000 WHEN 1 THEN 800 + h % 1700 WHEN 2 THEN 800 + h % 1700
						WHEN 3 THEN 1500 + h % 2500 WHEN 4 THEN 2000 + h % 4000 WHEN 5 THEN -(500 + h % 1500)
						WHEN 6 THEN -(500 + h % 4500) ELSE 300 + h % 1200 END
					 + (h % 100) / 100.0)::numeric(10,2) AS amount
				FROM finance_periods p,
					LATERAL (SELECT ((extract(year FROM $2::date) - extract(year FROM p.period_start)) * 12
						+ extract(month FROM $2::date) - extract(month FROM p.period_start))::int AS m) mi,
					LATERAL generate_series(0, ($3::int + $4::int - 1) / $4::int - 1) k,
					LATERAL (SELECT k * $4::int + mi.m AS i) ii,
					LATERAL (SELECT ii.i % 25 AS t, abs(hashtext(p.id::text || ii.i)) AS h) hh
				WHERE p.company_id = $1 AND p.period_type = 'monthly' AND ii.i < $3::int
			) x`,
			[]any{id, month0, o.TransactionsPerDrv, o.Months, today, n}},
		{"penalties", `
			INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, severity, amount, currency, incident_date,
				location, description, status, created_by)
			SELECT f.company_id, f.driver_id, f.id,
				(ARRAY['speeding','accident','damage','late_delivery','other'])[1 + abs(hashtext(f.id::text)) % 5],
				(ARRAY['minor','minor','moderate','major','critical'])[1 + abs(hashtext(f.id::text || 's')) % 5],
				-f.amount, f.currency, f.transaction_date, 'D1, km ' || (abs(hashtext(f.id::text)) % 370),
				'Synthetic penalty', CASE f.status WHEN 'paid' THEN 'accepted' ELSE 'pending' END, f.created_by
			FROM finance_transactions f WHERE f.company_id = $1 AND f.transaction_type = 'penalty'`,
			[]any{id}},
		{"disputes", `
			WITH d AS (
				UPDATE penalties SET status = 'disputed', dispute_reason = 'I was not driving', dispute_submitted_at = now()
				WHERE company_id = $1 AND status = 'pending' AND abs(hashtext(id::text)) % 4 = 0 RETURNING finance_id)
			UPDATE finance_transactions SET status = 'disputed' WHERE id IN (SELECT finance_id FROM d)`,
			[]any{id}},
		{"period totals", `
			UPDATE finance_periods p SET total_earnings = s.earn, total_deductions = s.ded, net_amount = s.earn - s.ded,
				transactions_count = s.n
			FROM (SELECT period_id, coalesce(sum(amount) FILTER (WHERE amount > 0), 0) AS earn,
					coalesce(-sum(amount) FILTER (WHERE amount < 0), 0) AS ded, count(*) AS n
				FROM finance_transactions WHERE company_id = $1 AND status <> 'cancelled' AND deleted_at IS NULL
				GROUP BY period_id) s
			WHERE p.id = s.period_id`,
			[]any{id}},
		{"orders", `
			INSERT INTO orders (id, company_id, driver_id, order_number, order_date, status, customer_name, origin, destination, price, currency)
			SELECT pg_temp.konvoj_seed_uuid($6, 2, row_number() OVER ()), $1, d.id, 'ORD-' || d.internal_seq || '-' || i,
				least(($2::date - ((i % $4::int) * interval '1 month'))::date + (i * 3) % 28, $5::date),
				CASE WHEN i % 17 = 0 THEN 'cancelled' ELSE 'completed' END,
				(ARRAY['Škoda Auto a.s.','Kaufland ČR','DHL Freight','Lidl Polska','Metro Cash & Carry'])[1 + i % 5],
				(ARRAY['Praha','Brno','Ostrava','Plzeň','Wrocław'])[1 + i % 5],
				(ARRAY['Berlin','Wien','München','Bratislava','Katowice'])[1 + (i * 3) % 5],
				(8000 + abs(hashtext(d.id::text || i)) % 30000)::numeric(10,2), 'CZK'
			FROM drivers d, generate_series(1, $3::int) i WHERE d.company_id = $1`,
			[]any{id, month0, o.OrdersPerMonth * o.Months, o.Months, today, n}},
		{"ratings", `
			INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score, components, rank_percentile, previous_score, calculated_at)
			SELECT company_id, driver_id, m, score, pg_temp.konvoj_seed_components(score, m),
				ceil(100 * cume_dist() OVER (PARTITION BY m ORDER BY score))::int,
				lag(score) OVER (PARTITION BY driver_id ORDER BY m), m + interval '1 month'
			FROM (
				SELECT d.company_id, d.id AS driver_id, m::date AS m,
					least(100, greatest(0, 55 + (abs(hashtext(d.id::text)) % 35) + (abs(hashtext(d.id::text || m)) % 11) - 5))::numeric(5,2) AS score
				FROM drivers d, generate_series($2::date - ($3::int) * interval '1 month', $2::date - interval '1 month', interval '1 month') m
				WHERE d.company_id = $1 AND d.status = 'active'
			) s`,
			[]any{id, month0, o.Months}},
	}
	for _, s := range steps {
		t := time.Now()
		tag, err := tx.Exec(ctx, s.sql, s.args...)
		if err != nil {
			return id, fmt.Errorf("%s: %w", s.what, err)
		}
		o.Log("  company %d: %-15s %8d rows in %s", n, s.what, tag.RowsAffected(), time.Since(t).Round(time.Millisecond))
	}
	return id, nil
}
