package rating

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/postgres"
)

// company is what a rating run needs to know of the company.
type company struct {
	ID       uuid.UUID
	Timezone string
	Currency string
}

// loadCompany reads what a rating needs of the company.
func loadCompany(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) (company, error) {
	var co company
	err := db.QueryRow(ctx, `SELECT id, timezone, currency FROM companies WHERE id = $1`, companyID).
		Scan(&co.ID, &co.Timezone, &co.Currency)
	if err == pgx.ErrNoRows {
		return company{}, apperr.NotFound("msg.common.not_found.company")
	}
	if err != nil {
		return company{}, fmt.Errorf("load company %s: %w", companyID, err)
	}
	return co, nil
}

// written is one snapshot a run wrote.
type written struct {
	SnapshotID   uuid.UUID
	DriverID     uuid.UUID
	Total        decimal.Decimal
	CalculatedAt time.Time
	rowsChanged  bool // the component rows differ from the stored ones (or none were)
	inserted     bool // the snapshot is new: it has no component rows yet
}

// rateTx rates a company's month on tx: driverIDs nil rates every active
// driver plus every driver already rated that month (a company run); else
// exactly those drivers. It upserts their snapshots and components, sets
// the previous_score of the next month's snapshots, and refreshes the rank
// percentiles of the whole month. markRun records a company run as the
// month's monthly rating (not for a refresh of the current month, which is
// not over). The caller commits: a run that fails or is cancelled part-way
// leaves nothing of it visible.
func rateTx(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, driverIDs []uuid.UUID, markRun bool) ([]written, error) {
	// One run per company and month at a time: the percentiles of the month
	// are computed over all its snapshots, and two runs interleaving their
	// upserts and percentile updates could otherwise deadlock.
	if err := lockMonth(ctx, tx, companyID, period); err != nil {
		return nil, err
	}
	// writeSnapshots also updates the next month's snapshots (their
	// previous_score), which that month's own run (the current month's
	// refresh, while the monthly job rates the month just ended) upserts
	// in another order, so the two could deadlock. A run therefore holds
	// the next month's lock too, always taken after its own month's, in
	// ascending order, so no two runs wait on each other in a circle.
	if err := lockMonth(ctx, tx, companyID, period.Next()); err != nil {
		return nil, err
	}
	// Statements are planned for their actual arguments (a run writes, so
	// its connection has plan_cache_mode = force_custom_plan, see
	// postgres.OpenSystem): a generic plan made for a whole company would be
	// poor for one driver.
	co, err := loadCompany(ctx, tx, companyID)
	if err != nil {
		return nil, err
	}
	cfg, err := loadConfig(ctx, tx, companyID, false)
	if err != nil {
		return nil, err
	}
	companyRun := driverIDs == nil
	if companyRun {
		// A batch's documents (14 a driver, each row with its driver's
		// statuses) must sort in memory: the default 4 MB spills them to
		// disk (docs/performance.md, "Rating a month").
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '32MB'`); err != nil {
			return nil, fmt.Errorf("set work_mem for rating company %s %s: %w", companyID, period, err)
		}
		if driverIDs, err = companyRunDrivers(ctx, tx, companyID, period); err != nil {
			return nil, err
		}
	}
	// A month with no snapshot yet (its first rating) only inserts: no
	// batch needs the statement that updates the stored snapshots, which
	// would search the whole month for each batch and find nothing. Under
	// the month's lock no other run writes it meanwhile.
	var stored bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM rating_snapshots WHERE company_id = $1 AND rating_period = $2)`,
		companyID, period.First()).Scan(&stored); err != nil {
		return nil, fmt.Errorf("check stored ratings of company %s %s: %w", companyID, period, err)
	}
	// A batch of drivers at a time: gathered, scored and written before the
	// next is read, so that memory does not grow with the company
	// (docs/performance.md, "Memory of a company's rating run"). The
	// percentiles are refreshed once, over the whole month, after every
	// batch is written.
	renewed := renewals{}
	var out []written
	for start := 0; start < len(driverIDs); start += rateBatch {
		batch := driverIDs[start:min(start+rateBatch, len(driverIDs))]
		var inputs []Inputs
		b := &pgx.Batch{}
		if start == 0 {
			// Every driver's renewals, once, in the first batch's round
			// trip: a batch's own lookup read the company's uploads of the
			// month, whatever its drivers.
			queueRenewals(b, companyID, period, driverIDs, renewed)
		}
		queueInputs(b, companyID, period, batch, &inputs)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return nil, fmt.Errorf("gather rating inputs of company %s %s: %w", companyID, period, err)
		}
		renewed.fill(inputs)
		results := make([]Result, len(inputs))
		for i, in := range inputs {
			results[i] = Score(in, cfg, period, co.Currency)
		}
		w, err := writeSnapshots(ctx, tx, companyID, period, results, stored)
		if err != nil {
			return nil, err
		}
		out = append(out, w...)
	}
	if err := refreshPercentiles(ctx, tx, companyID, period); err != nil {
		return nil, err
	}
	if companyRun && markRun {
		_, err := tx.Exec(ctx, `
			INSERT INTO rating_runs (company_id, rating_period, drivers_rated, completed_at)
			VALUES ($1, $2, $3, now())
			ON CONFLICT (company_id, rating_period) DO UPDATE
				SET drivers_rated = EXCLUDED.drivers_rated, completed_at = EXCLUDED.completed_at`,
			companyID, period.First(), len(out))
		if err != nil {
			return nil, fmt.Errorf("mark rating run of company %s %s: %w", companyID, period, err)
		}
	}
	return out, nil
}

// lockMonth takes the transaction advisory lock of a company's month (held
// until commit; taking it again in the same transaction succeeds at once).
func lockMonth(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('konvoj.rating:' || $1::text || ':' || $2::text, 0))`,
		companyID, period.First()); err != nil {
		return fmt.Errorf("lock rating of company %s %s: %w", companyID, period, err)
	}
	return nil
}

// gatherSQL collects every rated driver's inputs but their renewals
// (renewalsSQL) in one pass. $1 company, $2 first day, $3 last day of the
// month, $4 the drivers (live ones only are rated): an array of ids, or in
// gatherOneSQL one id.
//
// One driver's read runs on reused plans (the API's current-month rating),
// and PostgreSQL keeps a generic plan only when it is costed no dearer than
// a plan for the values. A generic plan costs an array parameter as ten
// drivers, and the uploads of a month by the company's whole share of the
// table: in a company holding most of the rows, PostgreSQL planned both
// statements again on every read (docs/performance.md, "Reads of one
// driver's rating inputs"). Written for one id, the generic plan is costed
// for the one driver it reads.
var (
	gatherSQL      = fmt.Sprintf(gatherFormat, driversAny)
	gatherOneSQL   = fmt.Sprintf(gatherFormat, driverOne)
	renewalsSQL    = fmt.Sprintf(renewalsFormat, driversAny, uploadsOfCompany)
	renewalsOneSQL = fmt.Sprintf(renewalsFormat, driverOne, uploadsOfDriver)
)

// The drivers a gather statement reads: $4 as an array of ids, or one id.
const (
	driversAny = "= ANY($4::uuid[])"
	driverOne  = "= $4::uuid"
)

// driversArg picks, for the drivers, one of a statement's two versions
// (many: $4 an array of ids; one: $4 one id) and its $4.
func driversArg(driverIDs []uuid.UUID, many, one string) (string, any) {
	if len(driverIDs) == 1 {
		return one, driverIDs[0]
	}
	return many, driverIDs
}

const gatherFormat = `
WITH company AS (
    SELECT c.id,
        -- The company's document facts (migrations/00024_company_document_facts.sql).
        f.required AS required_types, f.required_non_eu AS required_types_non_eu,
        f.chains, f.retired, f.tag_rule_for, f.tag_rule_types,
        -- Not EXISTS: the first order by date steers the planner to the
        -- (company_id, order_date) index instead of a sequential scan that
        -- hopes to meet a match early.
        (SELECT o.order_date FROM orders o
            WHERE o.company_id = c.id AND o.deleted_at IS NULL AND o.status <> 'cancelled'
                AND o.order_date BETWEEN $2 AND $3
            ORDER BY o.order_date LIMIT 1) IS NOT NULL AS uses_orders
    FROM companies c JOIN company_document_facts f ON f.company_id = c.id WHERE c.id = $1
),
rated AS (
    SELECT d.* FROM drivers d
    WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.id %[1]s
),
docs AS (
    SELECT r.id AS driver_id,
        array_agg(t.type ORDER BY t.ord) AS types,
        array_agg(coalesce(eff.st ->> t.type, 'no_data') ORDER BY t.ord) AS statuses,
        array_agg(CASE WHEN dd.current_file_id IS NOT NULL THEN dd.valid_until - $3::date END ORDER BY t.ord) AS days_left
    FROM rated r
    CROSS JOIN company c
    -- Effective statuses: the validity chains apply.
    CROSS JOIN LATERAL (
        SELECT jsonb_object_agg(s.type, s.status) AS st
        FROM konvoj_document_statuses($1, r.id, $3, c.chains, c.retired) s
    ) eff
    CROSS JOIN LATERAL unnest((CASE WHEN konvoj_eu_citizen(r.citizenship) THEN c.required_types ELSE c.required_types_non_eu END)
            || konvoj_tagged_types(c.tag_rule_for, c.tag_rule_types, r.tags))
        WITH ORDINALITY AS t(type, ord)
    -- The documents of the drivers asked for only: the planner hashes them,
    -- and unbounded that was every document of the company for each batch
    -- (280,000 rows, 117 ms, on the 20,000-driver company).
    LEFT JOIN driver_documents dd ON dd.company_id = $1 AND dd.driver_id = r.id AND dd.type = t.type
        AND dd.driver_id %[1]s
    GROUP BY r.id
),
pen AS (
    SELECT p.driver_id, count(*) AS n, sum(p.amount) AS total
    FROM penalties p JOIN rated r ON r.id = p.driver_id
    WHERE p.company_id = $1 AND p.deleted_at IS NULL AND p.status <> 'cancelled'
        AND p.incident_date BETWEEN $2 AND $3
    GROUP BY p.driver_id
),
act AS (
    SELECT o.driver_id, count(*) AS n
    FROM orders o JOIN rated r ON r.id = o.driver_id
    WHERE o.company_id = $1 AND o.deleted_at IS NULL AND o.status <> 'cancelled'
        AND o.order_date BETWEEN $2 AND $3
    GROUP BY o.driver_id
)
SELECT r.id,
    coalesce(docs.types, '{}'), coalesce(docs.statuses, '{}'), coalesce(docs.days_left, '{}'),
    coalesce(pen.n, 0), coalesce(pen.total, 0)::text,
    array_remove(ARRAY[
        CASE WHEN btrim(r.first_name) <> '' THEN 'first_name' END,
        CASE WHEN btrim(r.last_name) <> '' THEN 'last_name' END,
        CASE WHEN btrim(r.middle_name) <> '' THEN 'middle_name' END,
        CASE WHEN r.birth_date IS NOT NULL THEN 'birth_date' END,
        CASE WHEN btrim(r.citizenship) <> '' THEN 'citizenship' END,
        CASE WHEN btrim(r.rodne_cislo) <> '' THEN 'rodne_cislo' END,
        CASE WHEN btrim(r.email) <> '' THEN 'email' END,
        CASE WHEN btrim(r.phone) <> '' THEN 'phone' END,
        CASE WHEN btrim(r.registration_address) <> '' THEN 'registration_address' END,
        CASE WHEN btrim(r.residence_address) <> '' THEN 'residence_address' END,
        CASE WHEN r.office_id IS NOT NULL THEN 'office_id' END,
        CASE WHEN btrim(r.status) <> '' THEN 'status' END,
        CASE WHEN r.hire_date IS NOT NULL THEN 'hire_date' END,
        CASE WHEN r.contract_from IS NOT NULL THEN 'contract_from' END,
        CASE WHEN r.contract_to IS NOT NULL OR r.contract_indefinite THEN 'contract_to' END,
        CASE WHEN btrim(r.work_location) <> '' THEN 'work_location' END,
        CASE WHEN btrim(r.bank_country) <> '' THEN 'bank_country' END,
        CASE WHEN btrim(r.bank_account) <> '' THEN 'bank_account' END,
        CASE WHEN btrim(r.iban) <> '' THEN 'iban' END,
        CASE WHEN btrim(r.swift) <> '' THEN 'swift' END
    ], NULL),
    coalesce(act.n, 0), c.uses_orders
FROM rated r
CROSS JOIN company c
LEFT JOIN docs ON docs.driver_id = r.id
LEFT JOIN pen ON pen.driver_id = r.id
LEFT JOIN act ON act.driver_id = r.id
ORDER BY r.internal_seq`

// renewalsFormat collects the renewal delays of the drivers' uploads in
// the month (document_upload_timeliness): $1 company, $2 first day, $3 last
// day of the month, $4 the drivers (renewalsSQL: ids; renewalsOneSQL: one
// id, see gatherSQL), the uploads read as the second argument says. Apart
// from gatherSQL because a company run reads it once for all its drivers:
// inside the batch's statement the planner reads all of the company's
// uploads of the month for every batch, whichever drivers it holds
// (docs/performance.md, "Rating a month").
//
// The valid_until before an upload is the old value of the first change
// made by the upload's own transaction or later, else the current value
// (see migration 00006). A file renews a document when the document had a
// file before (version > 1) and, on the upload day, was expired,
// expiring_soon or warning by that previous valid_until.
const renewalsFormat = `
WITH company AS (
    SELECT c.id, c.timezone,
        ($2::date)::timestamp AT TIME ZONE c.timezone AS starts_at,
        ($3::date + 1)::timestamp AT TIME ZONE c.timezone AS ends_at
    FROM companies c WHERE c.id = $1
),
rated AS (
    SELECT d.id FROM drivers d
    WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.id %[1]s
),
uploads AS (
    SELECT dd.driver_id, f.version,
        (f.uploaded_at AT TIME ZONE c.timezone)::date AS upload_day,
        CASE WHEN ch.found THEN ch.old_valid_until ELSE dd.valid_until END AS previous_valid_until
    FROM %[2]s
    LEFT JOIN LATERAL (
        SELECT true AS found, v.old_valid_until FROM document_validity_changes v
        WHERE v.company_id = f.company_id AND v.document_id = f.document_id AND (v.xact = f.upload_xact OR v.changed_at > f.uploaded_at)
        ORDER BY v.id LIMIT 1
    ) ch ON true
)
SELECT driver_id, array_agg(upload_day - previous_valid_until ORDER BY upload_day)
FROM uploads
WHERE konvoj_document_status(version > 1, previous_valid_until, upload_day) IN ('expired', 'expiring_soon', 'warning')
GROUP BY driver_id`

// The uploads of renewalsFormat: only versions that became the document's
// (a pending or rejected upload renews nothing), in the month, whose
// bounds are subqueries: computed once, they bound each lookup in an index
// of uploads.
//
// uploadsOfCompany reads the company's uploads of the month and keeps the
// drivers'. uploadsOfDriver looks each of one driver's documents up in its
// own index of uploads: planned for any values, the month's range is a
// guess (half a percent of the company's rows), by which reading the
// company's month looked cheaper than fourteen lookups, and a driver's
// read would read the whole company's uploads. OFFSET 0 keeps the lookup
// a subquery per document, which the planner would otherwise merge into
// the join and order as it guesses.
const (
	uploadsOfCompany = `company c
    JOIN document_files f ON f.company_id = c.id
        AND f.uploaded_at >= (SELECT starts_at FROM company) AND f.uploaded_at < (SELECT ends_at FROM company)
        AND f.review_status = 'approved'
    JOIN driver_documents dd ON dd.company_id = f.company_id AND dd.id = f.document_id
    JOIN rated r ON r.id = dd.driver_id`
	uploadsOfDriver = `company c
    CROSS JOIN rated r
    JOIN driver_documents dd ON dd.company_id = c.id AND dd.driver_id = r.id
    CROSS JOIN LATERAL (
        SELECT f.company_id, f.document_id, f.version, f.uploaded_at, f.upload_xact FROM document_files f
        WHERE f.document_id = dd.id
            AND f.uploaded_at >= (SELECT starts_at FROM company) AND f.uploaded_at < (SELECT ends_at FROM company)
            AND f.review_status = 'approved'
        OFFSET 0
    ) f`
)

// rateBatch is how many drivers a run gathers, scores and writes at once
// (a variable so that a test can make batches small).
var rateBatch = 2000

// companyRunDrivers are the drivers a company run rates: every live active
// driver, and every live driver already rated that month (a driver made
// inactive keeps the month's rating up to date).
func companyRunDrivers(ctx context.Context, tx postgres.DBTX, companyID uuid.UUID, period Period) ([]uuid.UUID, error) {
	rows, err := tx.Query(ctx, `
		SELECT d.id FROM drivers d
		WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.status = 'active'
		UNION ALL
		-- Apart, so that only the few others look their snapshot up: with
		-- an OR, every snapshot of the month was read (and every version of
		-- it the last run left), 20-100 ms for 2,000 drivers.
		SELECT d.id FROM drivers d
		WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.status IS DISTINCT FROM 'active'
			AND EXISTS (SELECT FROM rating_snapshots s WHERE s.company_id = $1 AND s.driver_id = d.id AND s.rating_period = $2)
		ORDER BY 1`, companyID, period.First())
	if err != nil {
		return nil, fmt.Errorf("drivers to rate of company %s %s: %w", companyID, period, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("drivers to rate of company %s %s: %w", companyID, period, err)
	}
	return ids, nil
}

// gatherInputs reads the drivers' inputs, renewals included: gatherSQL and
// renewalsSQL in one round trip.
func gatherInputs(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, period Period, driverIDs []uuid.UUID) ([]Inputs, error) {
	var inputs []Inputs
	r := renewals{}
	b := &pgx.Batch{}
	queueInputs(b, companyID, period, driverIDs, &inputs)
	queueRenewals(b, companyID, period, driverIDs, r)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("gather rating inputs of company %s %s: %w", companyID, period, err)
	}
	r.fill(inputs)
	return inputs, nil
}

// queueInputs adds gatherSQL for the drivers to b; once b has run, inputs
// holds their inputs but the renewals.
func queueInputs(b *pgx.Batch, companyID uuid.UUID, period Period, driverIDs []uuid.UUID, inputs *[]Inputs) {
	sql, drivers := driversArg(driverIDs, gatherSQL, gatherOneSQL)
	b.Queue(sql, companyID, period.First(), period.Last(), drivers).Query(func(rows pgx.Rows) error {
		var err error
		*inputs, err = scanInputs(rows, companyID, period)
		return err
	})
}

// renewals are the renewal delays of drivers' uploads in a month, by driver
// (renewalsSQL); a driver without any has no entry.
type renewals map[uuid.UUID][]int

// queueRenewals adds renewalsSQL for the drivers to b; once b has run, r
// holds their renewals.
func queueRenewals(b *pgx.Batch, companyID uuid.UUID, period Period, driverIDs []uuid.UUID, r renewals) {
	sql, drivers := driversArg(driverIDs, renewalsSQL, renewalsOneSQL)
	b.Queue(sql, companyID, period.First(), period.Last(), drivers).Query(func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var id uuid.UUID
			var delays []int32
			if err := rows.Scan(&id, &delays); err != nil {
				return fmt.Errorf("scan renewals: %w", err)
			}
			for _, d := range delays {
				r[id] = append(r[id], int(d))
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("renewals of company %s %s: %w", companyID, period, err)
		}
		return nil
	})
}

// fill sets the inputs' RenewalDelays.
func (r renewals) fill(inputs []Inputs) {
	for i := range inputs {
		inputs[i].RenewalDelays = r[inputs[i].DriverID]
	}
}

// scanInputs reads the rows of gatherSQL, and closes them.
func scanInputs(rows pgx.Rows, companyID uuid.UUID, period Period) ([]Inputs, error) {
	defer rows.Close()
	var out []Inputs
	for rows.Next() {
		var in Inputs
		var types, statuses []string
		var daysLeft []*int32
		var amount string
		var penalties, orders int64
		if err := rows.Scan(&in.DriverID, &types, &statuses, &daysLeft, &penalties, &amount,
			&in.FilledFields, &orders, &in.CompanyUsesOrders); err != nil {
			return nil, fmt.Errorf("scan rating inputs: %w", err)
		}
		for i := range types {
			d := DocState{Type: types[i], Status: statuses[i]}
			if daysLeft[i] != nil {
				n := int(*daysLeft[i])
				d.DaysLeft = &n
			}
			in.Documents = append(in.Documents, d)
		}
		in.Penalties, in.Orders = int(penalties), int(orders)
		var err error
		if in.PenaltiesAmount, err = decimal.NewFromString(amount); err != nil {
			return nil, fmt.Errorf("penalty sum %q: %w", amount, err)
		}
		out = append(out, in)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read rating inputs: %w", err)
	}
	return out, nil
}
