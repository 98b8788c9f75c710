package drivers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/postgres"
)

// The SQL of the drivers area. Document status, documents_summary and
// is_ready come from the SQL functions of migration 00002, so one statement
// computes them for a whole page (docs/drivers-and-documents.md).

// driverColumns are the stored columns of the full driver object.
const driverColumns = `d.id, d.company_id, d.office_id, d.internal_number, d.first_name, d.last_name, d.middle_name,
	d.birth_date, d.citizenship, d.rodne_cislo, d.email, d.phone, d.registration_address, d.residence_address,
	d.status, d.hire_date, d.fire_date, d.contract_from, d.contract_to, d.contract_indefinite, d.work_location,
	d.bank_country, d.bank_account, d.iban, d.swift, d.flags, d.tags, d.language, d.created_at, d.updated_at`

// companyFacts is what the status rules need from the company (alias co):
// today in the company's time zone and its document facts, which triggers
// keep in company_document_facts whenever its document types or rules
// change (migrations/00024_company_document_facts.sql): the required
// document types (the document rules, docs/alerts.md) of every driver, of
// a driver from outside the EU, EEA and Switzerland, and the tag groups'
// rules side by side (required_for tag:<tag> and type); the validity
// chains and the retired custom types. Always in a MATERIALIZED CTE, so
// that it is read once per statement.
const companyFacts = `SELECT konvoj_today(c.timezone) AS today, f.required, f.required_non_eu,
		f.tag_rule_for, f.tag_rule_types, f.chains, f.retired
	FROM companies c
	JOIN company_document_facts f ON f.company_id = c.id`

// requiredOf is the required document types of driver d (alias co for the
// company facts): by citizenship, plus those of the driver's tags.
var requiredOf = requiredTypes(func(fact string) string { return "co." + fact })

// requiredTypes is requiredOf with each company fact written by fact: a
// column of a joined co, or, in a statement that does not join co (the
// list's paging query), a scalar subquery read once per statement.
func requiredTypes(fact func(string) string) string {
	return `((CASE WHEN konvoj_eu_citizen(d.citizenship) THEN ` + fact("required") + ` ELSE ` + fact("required_non_eu") + ` END)
	|| konvoj_tagged_types(` + fact("tag_rule_for") + `, ` + fact("tag_rule_types") + `, d.tags))`
}

// summaryJoin counts the documents of driver d by effective status (alias
// s; the validity chains apply, retired types are left out) and how many
// required types are usable (valid, warning or expiring_soon). A driver
// has one document per type, so it is ready when that count equals the
// number of required types. The statuses come from the stored effective
// dates (document_effective, one index leaf a driver), so no chain is
// worked out per row.
var summaryJoin = `CROSS JOIN LATERAL (
		SELECT count(*) AS total,
			count(*) FILTER (WHERE x.status = 'valid') AS valid,
			count(*) FILTER (WHERE x.status = 'warning') AS warning,
			count(*) FILTER (WHERE x.status = 'expiring_soon') AS expiring_soon,
			count(*) FILTER (WHERE x.status = 'expired') AS expired,
			count(*) FILTER (WHERE x.status = 'no_data') AS no_data,
			count(*) FILTER (WHERE x.type = ANY ` + requiredOf + ` AND x.status IN ('valid', 'warning', 'expiring_soon')) AS ready_docs
		FROM (
			SELECT e.type, konvoj_document_status(e.has_file, e.until, co.today) AS status
			FROM document_effective e
			WHERE e.driver_id = d.id AND e.company_id = d.company_id
		) x
	) s`

// readyExpr is is_ready (docs/drivers-and-documents.md) over d, co and s.
var readyExpr = `(d.status = 'active' AND s.ready_docs = cardinality` + requiredOf + `)`

// readyCondition is readyExpr as a condition of the list's paging query
// (the is_ready filter), where neither co nor the summary is joined: the
// driver's usable required documents counted from its leaf of
// document_effective_driver_idx (index only), one probe per driver the
// scan reads, as the summary counts them for a page row. OFFSET 0 keeps the
// driver's required types one value (r.types) worked out once per driver:
// written into the count, they were worked out again for each of its
// documents, and the filter took twice the time of the probes alone
// (docs/query-plans.md, "The readiness filter").
var readyCondition = func() string {
	required := requiredTypes(func(fact string) string { return "(SELECT " + fact + " FROM co)" })
	return `(d.status = 'active' AND (
				SELECT (
					SELECT count(*) FROM document_effective e
					WHERE e.driver_id = d.id AND e.company_id = d.company_id AND e.type = ANY (r.types)
						AND e.has_file AND (e.until IS NULL OR e.until >= (SELECT today FROM co))
				) = cardinality(r.types)
				FROM (SELECT ` + required + ` AS types OFFSET 0) r
			))`
}()

// loadDriverRow loads the company's live driver id, without access checks:
// for a driver the request has just written (a create, an import's
// webhook events); a caller's driver is loaded by loadDriver (access.go).
// 404 when the company has no live driver with the id; forUpdate locks
// the row until the transaction ends.
func loadDriverRow(ctx context.Context, db postgres.DBTX, companyID, id uuid.UUID, forUpdate bool) (Driver, error) {
	var d Driver
	found := false
	b := &pgx.Batch{}
	queueDriver(b, companyID, id, forUpdate, &d, &found)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Driver{}, err
	}
	if !found {
		return Driver{}, apperr.NotFound("msg.common.not_found.driver")
	}
	return d, nil
}

// queueDriver adds the full driver's statement to b: once b has run,
// *found says whether the company has a live driver with the id, and *d is
// it. The loaders (access.go) send it alone or with the driver's documents.
func queueDriver(b *pgx.Batch, companyID, id uuid.UUID, forUpdate bool, d *Driver, found *bool) {
	sql := `SELECT ` + driverColumns + `, ` + readyExpr + `, ` + requiredOf + `
		FROM drivers d
		CROSS JOIN LATERAL (` + companyFacts + ` WHERE c.id = d.company_id) co
		` + summaryJoin + `
		WHERE d.company_id = $2 AND d.id = $1 AND d.deleted_at IS NULL`
	if forUpdate {
		sql += ` FOR UPDATE OF d`
	}
	b.Queue(sql, id, companyID).QueryRow(func(row pgx.Row) error {
		err := scanDriver(row, d, &d.RequiredTypes)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("get driver %s: %w", id, err)
		}
		*found = true
		return nil
	})
}

// loadDriverRows reads the company's live drivers of ids (an import's, for
// its events) in one statement, in no particular order.
func loadDriverRows(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, ids []uuid.UUID) ([]Driver, error) {
	rows, err := db.Query(ctx, `SELECT `+driverColumns+`, `+readyExpr+`
		FROM drivers d
		CROSS JOIN LATERAL (`+companyFacts+` WHERE c.id = d.company_id) co
		`+summaryJoin+`
		WHERE d.company_id = $2 AND d.id = ANY ($1) AND d.deleted_at IS NULL`, ids, companyID)
	if err != nil {
		return nil, fmt.Errorf("get drivers: %w", err)
	}
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, d *Driver) error { return scanDriver(row, d) })
	if err != nil {
		return nil, fmt.Errorf("get drivers: %w", err)
	}
	return out, nil
}

// scanDriver scans driverColumns and readyExpr into d.
func scanDriver(row pgx.Row, d *Driver, more ...any) error {
	return row.Scan(append([]any{&d.ID, &d.CompanyID, &d.OfficeID, &d.InternalNumber, &d.FirstName, &d.LastName,
		&d.MiddleName, &d.BirthDate, &d.Citizenship, &d.RodneCislo, &d.Email, &d.Phone, &d.RegistrationAddress,
		&d.ResidenceAddress, &d.Status, &d.HireDate, &d.FireDate, &d.ContractFrom, &d.ContractTo, &d.ContractIndefinite,
		&d.WorkLocation, &d.BankCountry, &d.BankAccount, &d.IBAN, &d.SWIFT, &d.Flags, &d.Tags, &d.Language, &d.CreatedAt, &d.UpdatedAt, &d.IsReady}, more...)...)
}

// writableColumns are the columns a create or update writes, in the order of
// writableValues.
const writableColumns = `office_id, first_name, last_name, middle_name, birth_date, citizenship, rodne_cislo, email,
	phone, registration_address, residence_address, status, hire_date, fire_date, contract_from, contract_to,
	contract_indefinite, work_location, bank_country, bank_account, iban, swift, flags, tags, language`

func writableValues(d Driver) []any {
	return []any{d.OfficeID, d.FirstName, d.LastName, d.MiddleName, d.BirthDate, d.Citizenship, d.RodneCislo, d.Email,
		d.Phone, d.RegistrationAddress, d.ResidenceAddress, d.Status, d.HireDate, d.FireDate, d.ContractFrom, d.ContractTo,
		d.ContractIndefinite, d.WorkLocation, d.BankCountry, d.BankAccount, d.IBAN, d.SWIFT, d.Flags, tagsValue(d.Tags), d.Language}
}

// writableTypes are the types of writableColumns in the arrays of a bulk
// write (driverArrays): flags and tags travel as JSON text.
var writableTypes = []string{"uuid", "text", "text", "text", "date", "text", "text", "text",
	"text", "text", "text", "text", "date", "date", "date", "date",
	"boolean", "text", "text", "text", "text", "text", "text", "text", "text"}

// writableNames are the names of writableColumns.
var writableNames = func() []string {
	names := strings.Split(writableColumns, ",")
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	return names
}()

// bulkSelect turns the columns of unnest(driverArrays) AS u into the values
// of writableColumns.
var bulkSelect = func() string {
	exprs := make([]string, len(writableNames))
	for i, n := range writableNames {
		switch n {
		case "flags":
			exprs[i] = "u.flags::jsonb"
		case "tags":
			exprs[i] = "ARRAY(SELECT jsonb_array_elements_text(u.tags::jsonb))"
		default:
			exprs[i] = "u." + n
		}
	}
	return strings.Join(exprs, ", ")
}()

// driverArrays are the writable values of many drivers as one array per
// column, for INSERT or UPDATE … FROM unnest(…): the column names, the
// arrays' typed placeholders from $from, and the arrays.
func driverArrays(ds []Driver, from int) (names, arrays string, args []any) {
	cols := make([][]any, len(writableNames))
	for i := range cols {
		cols[i] = make([]any, len(ds))
	}
	for j, d := range ds {
		for i, v := range writableValues(d) {
			switch writableNames[i] {
			case "flags":
				v = "{}"
				if len(d.Flags) > 0 {
					v = string(d.Flags)
				}
			case "tags":
				b, err := json.Marshal(tagsValue(d.Tags))
				if err != nil {
					b = []byte("[]")
				}
				v = string(b)
			}
			cols[i][j] = v
		}
	}
	ps := make([]string, len(cols))
	args = make([]any, len(cols))
	for i := range cols {
		ps[i] = fmt.Sprintf("$%d::%s[]", from+i, writableTypes[i])
		args[i] = cols[i]
	}
	return strings.Join(writableNames, ", "), strings.Join(ps, ", "), args
}

// placeholders returns "$from, $from+1, …" for n values.
func placeholders(from, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf("$%d", from+i)
	}
	return strings.Join(ps, ", ")
}

// Insert stores a new driver as given: the company's next DRV- number and
// the driver's 14 empty document records come with it, in tx. It checks
// nothing and writes no audit row: Service.Create calls it after its checks
// and validation, and test data is made with it, so the per-row INSERT INTO
// drivers exists once.
func Insert(ctx context.Context, tx postgres.DBTX, d Driver) (uuid.UUID, error) {
	seq, err := nextNumber(ctx, tx, d.CompanyID)
	if err != nil {
		return uuid.Nil, err
	}
	d.InternalNumber = fmt.Sprintf("DRV-%04d", seq)
	id, err := insertDriver(ctx, tx, d, seq)
	if err != nil {
		return uuid.Nil, err
	}
	if err := documents.CreateForDriver(ctx, tx, d.CompanyID, id); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// nextNumber takes the company's next driver number. The UPDATE locks the
// company row until the transaction ends, so concurrent creates queue here
// and never share a number; a rolled-back create gives its number back.
func nextNumber(ctx context.Context, tx postgres.DBTX, companyID uuid.UUID) (int64, error) {
	var seq int64
	err := tx.QueryRow(ctx, `UPDATE companies SET driver_number_seq = driver_number_seq + 1 WHERE id = $1 RETURNING driver_number_seq`,
		companyID).Scan(&seq)
	if err != nil {
		return 0, fmt.Errorf("next driver number of company %s: %w", companyID, err)
	}
	return seq, nil
}

// insertDriver stores a new driver numbered seq and returns its id.
func insertDriver(ctx context.Context, tx postgres.DBTX, d Driver, seq int64) (uuid.UUID, error) {
	vals := writableValues(d)
	args := append([]any{d.CompanyID, d.InternalNumber, seq}, vals...)
	var id uuid.UUID
	err := tx.QueryRow(ctx, `INSERT INTO drivers (company_id, internal_number, internal_seq, `+writableColumns+`)
		VALUES ($1, $2, $3, `+placeholders(4, len(vals))+`) RETURNING id`, args...).Scan(&id)
	if err != nil {
		return uuid.Nil, wrapWriteErr(err, "insert driver")
	}
	return id, nil
}

// updateDriver writes every writable column of d (the merged record; the
// row is locked by loadDriver) and sets d to the row as written: its
// stamps and readiness come back with the write (RETURNING), so the driver
// is not read again.
func updateDriver(ctx context.Context, tx postgres.DBTX, d *Driver) error {
	vals := writableValues(*d)
	row := tx.QueryRow(ctx, `UPDATE drivers d SET (`+writableColumns+`) = ROW(`+placeholders(3, len(vals))+`)
		WHERE d.company_id = $1 AND d.id = $2 AND d.deleted_at IS NULL
		RETURNING `+driverColumns+`, (SELECT `+readyExpr+`
			FROM (`+companyFacts+` WHERE c.id = d.company_id) co
			`+summaryJoin+`),
			EXISTS (SELECT FROM transport_units tu WHERE tu.driver_id = d.id AND tu.unassigned_at IS NULL AND tu.deleted_at IS NULL)`,
		append([]any{d.CompanyID, d.ID}, vals...)...)
	if err := scanDriver(row, d, &d.inUnit); err != nil {
		return wrapWriteErr(err, "update driver "+d.ID.String())
	}
	return nil
}

// wrapWriteErr turns the e-mail unique index into 409 DuplicateEntry; it is
// the check that holds under concurrent requests.
func wrapWriteErr(err error, what string) error {
	if postgres.IsUniqueViolation(err, "drivers_company_email_key") {
		return apperr.Duplicate("msg.drivers.email_taken")
	}
	return fmt.Errorf("%s: %w", what, err)
}

// SoftDelete marks the company's driver deleted; its e-mail becomes free
// (the unique index covers live drivers only) and its documents and files
// stay. Like Insert it checks nothing: Service.Delete calls it on the driver
// it loaded for the caller, and test data is made with it.
func SoftDelete(ctx context.Context, tx postgres.DBTX, companyID, id uuid.UUID) error {
	if _, err := tx.Exec(ctx, `UPDATE drivers SET deleted_at = now() WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL`,
		companyID, id); err != nil {
		return fmt.Errorf("delete driver %s: %w", id, err)
	}
	return nil
}

// CompactCounts folds each company's rows of driver_counts into one per
// status, in every company (migrations/00036_driver_counts.sql; the daily
// job compact_driver_counts, on the system pool). Rows that writes add
// meanwhile are not yet seen by the delete, so they stay, and every sum
// is the same before and after.
func CompactCounts(ctx context.Context, db postgres.DBTX) error {
	if _, err := db.Exec(ctx, `
		WITH gone AS (DELETE FROM driver_counts RETURNING company_id, status, live)
		INSERT INTO driver_counts (company_id, status, live)
		SELECT company_id, status, sum(live) FROM gone GROUP BY 1, 2 HAVING sum(live) <> 0`); err != nil {
		return fmt.Errorf("compact driver counts: %w", err)
	}
	return nil
}

// officeExists reports whether the office is a live office of the company.
func officeExists(ctx context.Context, db postgres.DBTX, companyID, officeID uuid.UUID) (bool, error) {
	var ok bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM offices WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL)`,
		companyID, officeID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check office %s: %w", officeID, err)
	}
	return ok, nil
}

// listQuery builds the list statement from fixed SQL fragments; every value
// travels as an argument.
type listQuery struct {
	params    ListParams
	companyID uuid.UUID
	only      *uuid.UUID // a driver caller's own record
	after     *cursor
	feed      *feed.Query // the change feed instead of a sort
	args      postgres.Args
	// storedTotal, set by where when the filters allow it: an offset
	// page's total read from what triggers keep (driver_counts,
	// driver_expiry) instead of counted with the page. Empty: counted.
	storedTotal string
}

// where returns the filter conditions; $1 is the company.
func (q *listQuery) where() string {
	q.args = postgres.Args{Values: []any{q.companyID}}
	conds := []string{"d.company_id = $1"}
	if q.feed != nil {
		conds = append(conds, q.feed.Where("d", true, q.args.Add))
	} else {
		conds = append(conds, "d.deleted_at IS NULL")
	}
	lp := q.params
	if q.only != nil {
		conds = append(conds, "d.id = "+q.args.Add(*q.only))
	}
	if len(lp.OfficeIDs) > 0 {
		conds = append(conds, "d.office_id = ANY ("+q.args.Add(lp.OfficeIDs)+"::uuid[])")
	}
	if len(lp.Citizenship) > 0 {
		conds = append(conds, "d.citizenship = ANY ("+q.args.Add(lp.Citizenship)+"::bpchar[])")
	}
	if len(lp.Tags) > 0 {
		conds = append(conds, "d.tags && "+q.args.Add(lp.Tags)+"::text[]")
	}
	// search_text is already lower-case and accent-free. Each word is
	// looked up by konvoj_driver_search, where the trigram index serves
	// LIKE '%word%': under the row-level security policies a plain LIKE
	// here could not use it (migrations/00010_driver_search_under_rls.sql).
	// It is called in FROM, where its result is kept and read again: as a
	// select-list call the planner runs it again for every driver
	// (docs/performance.md, "Go benchmarks", BenchmarkDriversPages).
	for _, w := range searchWords(lp.Search) {
		conds = append(conds, "d.id IN (SELECT s.id FROM konvoj_driver_search($1, "+q.args.Add(w)+"::text) AS s(id))")
	}
	// The document types narrow both document filters, each over its own
	// table: one argument, a condition per alias. The argument is added
	// only when a filter uses it: alone, document_type keeps every driver,
	// and a parameter no condition names has no type PostgreSQL can infer.
	typesArg := ""
	types := func(alias string) string {
		if len(lp.DocumentType) == 0 {
			return ""
		}
		if typesArg == "" {
			typesArg = q.args.Add(lp.DocumentType)
		}
		return " AND " + alias + ".type = ANY (" + typesArg + "::text[])"
	}
	if lp.DocumentDueWithin != nil {
		// Each document's own valid_until from today to today+N, an index
		// range of driver_documents; expired documents are left out.
		conds = append(conds, `d.id IN (
				SELECT dd.driver_id FROM driver_documents dd
				WHERE dd.company_id = $1 AND dd.current_file_id IS NOT NULL`+types("dd")+`
					AND dd.type <> ALL ((SELECT retired FROM co)::text[])
					AND dd.valid_until BETWEEN (SELECT today FROM co) AND (SELECT today + `+q.args.Add(*lp.DocumentDueWithin)+`::int FROM co))`)
	}
	switch lp.IsReady {
	case "true":
		conds = append(conds, readyCondition)
	case "false":
		conds = append(conds, "NOT "+readyCondition)
	}
	// Every condition but the company's live drivers, the document status
	// and the status is above this line, so any filter added there turns
	// counting back on.
	filtered := q.feed != nil || len(conds) > 2
	expired := onlyExpired(lp)
	matches := ""
	switch {
	case expired:
		conds = append(conds, expiredCondition)
	case len(lp.DocumentStatus) > 0:
		matches = q.effectiveMatches(types("e"))
		conds = append(conds, `(d.id IN (SELECT e.driver_id FROM `+matches+`) OR false)`)
	}
	statuses := ""
	if len(lp.Status) > 0 {
		statuses = q.args.Add(lp.Status)
		conds = append(conds, "d.status = ANY ("+statuses+"::text[])")
	}
	q.storedTotal = ""
	switch {
	case filtered:
	case len(lp.DocumentStatus) == 0:
		q.storedTotal = countedTotal(statuses)
	case expired && statuses == "":
		q.storedTotal = expiredTotal
	case statuses == "" && narrowStatus(lp):
		q.storedTotal = effectiveTotal(matches)
	}
	return strings.Join(conds, "\n\t\t\t\tAND ")
}

// countedTotal is the total of a list of the company's live drivers of the
// statuses asked (statuses is the filter's argument, empty: all): the sum of
// driver_counts, which triggers keep (migrations/00036_driver_counts.sql).
func countedTotal(statuses string) string {
	cond := ""
	if statuses != "" {
		cond = " AND n.status = ANY (" + statuses + "::text[])"
	}
	return "(SELECT coalesce(sum(n.live), 0) FROM driver_counts n WHERE n.company_id = $1" + cond + ")"
}

// onlyExpired reports whether the document status filter asks for an
// expired document of any type, and nothing else: the question HR asks
// every morning, which driver_expiry answers (migrations/00037_driver_expiry.sql).
func onlyExpired(lp ListParams) bool {
	return len(lp.DocumentStatus) == 1 && lp.DocumentStatus[0] == "expired" && len(lp.DocumentType) == 0
}

// expiredCondition is document_status=expired from driver_expiry: the
// drivers with an expired document from a day up to today. The OR keeps
// it a subplan that is hashed once (7,000 ids of a 20,000-driver company)
// and probed by each driver the page's scan reads; as a join the planner
// counted on the LIMIT and probed driver_expiry once per driver, 20,000
// times for the total (docs/query-plans.md).
const expiredCondition = `(d.id IN (
				SELECT e.driver_id FROM driver_expiry e
				WHERE e.company_id = $1 AND e.expired_from <= (SELECT today FROM co)) OR false)`

// expiredTotal is the total of document_status=expired when nothing else
// filters: the company's drivers in driver_expiry from an index range, less
// the soft-deleted ones among them (few, from a partial index), so that the
// page's scan stops at its last row.
const expiredTotal = `((SELECT count(*) FROM driver_expiry e
				WHERE e.company_id = $1 AND e.expired_from <= (SELECT today FROM co))
			- (SELECT count(*) FROM drivers x JOIN driver_expiry e ON e.driver_id = x.id
				WHERE x.company_id = $1 AND x.deleted_at IS NOT NULL AND e.expired_from <= (SELECT today FROM co)))`

// effectiveMatches is the document_status filter (docs/drivers-and-documents.md)
// as the rows of document_effective (alias e) it matches: the documents
// (of the types, when given: types is that condition on e) whose effective
// status is one of those asked. Each
// document's effective status is one stored date and whether it and the
// documents its chain picks have files (kept by triggers:
// migrations/00039_document_effective.sql), so every status is an index
// range of that date, whatever the chains. The condition is "d.id IN"
// their drivers, with an OR that keeps it a subplan hashed once and probed
// by each driver the page's scan reads (as expiredCondition).
func (q *listQuery) effectiveMatches(types string) string {
	ranges := make([]string, len(q.params.DocumentStatus))
	for i, st := range q.params.DocumentStatus {
		ranges[i] = "(" + statusRanges[st] + ")"
	}
	return `document_effective e
				WHERE e.company_id = $1 AND (` + strings.Join(ranges, " OR ") + `)` + types
}

// narrowStatus reports whether the document_status filter asks for one
// status whose documents are few: expired, expiring_soon or warning (one
// range of at most a few weeks of dates, or the past). Counting the
// drivers of the matching rows is then cheaper than probing every driver;
// valid and no_data match most documents, and several statuses are an OR
// of ranges, which the count would read a second time, so those keep
// counting with the page (docs/performance.md, "The document status
// filter").
func narrowStatus(lp ListParams) bool {
	return len(lp.DocumentStatus) == 1 && slices.Contains([]string{"expired", "expiring_soon", "warning"}, lp.DocumentStatus[0])
}

// effectiveTotal is the total of a narrow document_status filter when
// nothing else filters: the drivers of the matching rows less the
// soft-deleted ones among them (few, from a partial index), so that the
// page's scan stops at its last row instead of probing every driver of
// the company.
func effectiveTotal(matches string) string {
	return `((SELECT count(DISTINCT e.driver_id) FROM ` + matches + `)
			- (SELECT count(*) FROM drivers x WHERE x.company_id = $1 AND x.deleted_at IS NOT NULL
				AND EXISTS (SELECT 1 FROM ` + matches + ` AND e.driver_id = x.id)))`
}

// statusRanges are, per document status, the conditions on the
// documents' effective dates (documents.EffectiveStatusRanges, shared with
// the documents list).
var statusRanges = documents.EffectiveStatusRanges

// feedColumn is the feed's order (updated_at, then id; ascending), served by
// drivers_company_updated_at_idx.
var feedColumn = sortColumn{expr: "d.updated_at", cast: "timestamptz"}

// nextExpiryJoin finds the valid_until of driver d's most urgent document
// (nx.valid_until, null when none) from the index
// driver_documents_next_expiry_idx: one index probe per driver.
const nextExpiryJoin = `LEFT JOIN LATERAL (
				SELECT dd.valid_until FROM driver_documents dd
				WHERE dd.driver_id = d.id AND dd.company_id = d.company_id
					AND dd.current_file_id IS NOT NULL AND dd.valid_until IS NOT NULL
					AND dd.type <> ALL ((SELECT retired FROM co)::text[])
				ORDER BY dd.valid_until, dd.type
				LIMIT 1
			) nx ON true`

// nextDueJoin finds the valid_until of driver d's next document coming due
// (nxd.valid_until: the earliest from today on, null when none), from the
// same index: one index probe per driver, which starts at today.
const nextDueJoin = `LEFT JOIN LATERAL (
				SELECT dd.valid_until FROM driver_documents dd
				WHERE dd.driver_id = d.id AND dd.company_id = d.company_id
					AND dd.current_file_id IS NOT NULL AND dd.valid_until >= (SELECT today FROM co)
					AND dd.type <> ALL ((SELECT retired FROM co)::text[])
				ORDER BY dd.valid_until, dd.type
				LIMIT 1
			) nxd ON true`

// dueItem is the NextExpiry object of driver d's next document coming due
// (alias nd), the same document nextDueJoin picks.
const dueItem = `LEFT JOIN LATERAL (
			SELECT dd.id, dd.type, dd.valid_until, dd.valid_until - co.today AS days,
				konvoj_document_status(true, dd.valid_until, co.today) AS status
			FROM driver_documents dd
			WHERE dd.driver_id = d.id AND dd.company_id = d.company_id
				AND dd.current_file_id IS NOT NULL AND dd.valid_until >= co.today
				AND dd.type <> ALL (co.retired)
			ORDER BY dd.valid_until, dd.type
			LIMIT 1
		) nd ON true`

// expiredItems are driver d's expired documents (alias ex, arrays in the
// order of valid_until, then type): the same index, the range before
// today. The most urgent document (nextExpiryJoin) is the first of them,
// else the next one coming due.
const expiredItems = `CROSS JOIN LATERAL (
			SELECT array_agg(dd.id ORDER BY dd.valid_until, dd.type) AS ids,
				array_agg(dd.type ORDER BY dd.valid_until, dd.type) AS types,
				array_agg(dd.valid_until ORDER BY dd.valid_until, dd.type) AS untils
			FROM driver_documents dd
			WHERE dd.driver_id = d.id AND dd.company_id = d.company_id
				AND dd.current_file_id IS NOT NULL AND dd.valid_until < co.today
				AND dd.type <> ALL (co.retired)
		) ex`

// keyset is the condition "after the cursor row" in the sort order, with
// nulls last in both directions.
func (q *listQuery) keyset(col sortColumn, op string) string {
	c := q.after
	id := q.args.Add(c.ID)
	if c.Key == nil {
		return fmt.Sprintf("(%s IS NULL AND d.id %s %s)", col.expr, op, id)
	}
	cond := fmt.Sprintf("(%s, d.id) %s (%s::text::%s, %s)", col.expr, op, q.args.Add(*c.Key), col.cast, id)
	if col.nullable {
		cond = fmt.Sprintf("(%s OR %s IS NULL)", cond, col.expr)
	}
	return cond
}

// run returns the page's items, each item's sort key (for the next cursor)
// and, in offset mode, the total of the filtered set. In cursor mode it
// reads one row more than the limit, to tell whether more follow.
func (q *listQuery) run(ctx context.Context, db postgres.DBTX) ([]ListItem, []*string, int, error) {
	lp := q.params
	col := sortColumns[lp.SortBy]
	if q.feed != nil {
		col = feedColumn
	}
	dir, op := "ASC", ">"
	if lp.SortOrder == "desc" {
		dir, op = "DESC", "<"
	}
	where := q.where()
	if q.after != nil {
		where += "\n\t\t\t\tAND " + q.keyset(col, op)
	}
	order := fmt.Sprintf("%s %s NULLS LAST, d.id %s", col.expr, dir, dir)
	total, limit, offset := "count(*) OVER ()", "", ""
	switch {
	case q.feed != nil:
		total, limit, offset = "0", q.args.Add(q.feed.Limit+1), "0"
	case lp.Page.Keyset:
		total, limit, offset = "0", q.args.Add(lp.Page.Size+1), "0"
	default:
		limit, offset = q.args.Add(lp.Page.Size), q.args.Add(lp.Page.Offset())
		if q.storedTotal != "" {
			// The page then reads only its own rows: on 20,000 drivers
			// the window's count was two thirds of the statement.
			total = q.storedTotal
		}
	}
	// The outer query sorts the page again by the paging query's key
	// (p.sort_key is its text form, so it is cast back) and id.
	outerOrder := fmt.Sprintf("p.sort_key::%s %s NULLS LAST, d.id %s", col.cast, dir, dir)
	sql := fmt.Sprintf(`
		WITH co AS MATERIALIZED (%s WHERE c.id = $1)
		SELECT d.id, d.internal_number, d.first_name, d.last_name, d.email, d.phone, d.citizenship, d.status,
			d.hire_date, d.created_at, d.updated_at, d.deleted_at,
			s.total, s.valid, s.warning, s.expiring_soon, s.expired, s.no_data, %s,
			nd.id, nd.type, nd.valid_until, nd.days, nd.status, ex.ids, ex.types, ex.untils, co.today,
			p.sort_key, p.total_rows
		FROM (
			SELECT d.id, (%s)::text AS sort_key, %s AS total_rows
			FROM drivers d
			%s
			WHERE %s
			ORDER BY %s
			LIMIT %s OFFSET %s
		) p
		JOIN drivers d ON d.id = p.id AND d.company_id = $1
		CROSS JOIN co
		%s
		%s
		%s
		ORDER BY %s`,
		companyFacts, readyExpr, col.expr, total, col.join, where, order, limit, offset, summaryJoin, dueItem, expiredItems, outerOrder)
	rows, err := db.Query(ctx, sql, q.args.Values...)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list drivers: %w", err)
	}
	var keys []*string
	var key *string
	var nd nextExpiryRow
	var ex expiredRows
	var today civil.Date
	n := 0
	items, err := postgres.AppendRows([]ListItem{}, rows, func(row pgx.Row, it *ListItem) error {
		key, nd, ex = nil, nextExpiryRow{}, expiredRows{} // fresh pointers for each row's values
		s := &it.DocumentsSummary
		if err := row.Scan(&it.ID, &it.InternalNumber, &it.FirstName, &it.LastName, &it.Email, &it.Phone, &it.Citizenship,
			&it.Status, &it.HireDate, &it.CreatedAt, &it.UpdatedAt, &it.DeletedAt,
			&s.Total, &s.Valid, &s.Warning, &s.ExpiringSoon, &s.Expired, &s.NoData, &it.IsReady,
			&nd.id, &nd.typ, &nd.validUntil, &nd.days, &nd.status, &ex.ids, &ex.types, &ex.untils, &today, &key, &n); err != nil {
			return err
		}
		it.NextDue = nd.value()
		it.Expired = ex.value(today)
		it.NextExpiry = it.NextDue
		if len(it.Expired) > 0 {
			it.NextExpiry = &it.Expired[0]
		}
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list drivers: %w", err)
	}
	return items, keys, n, nil
}

// nextExpiryRow is the nullable NextExpiry columns of a list row.
type nextExpiryRow struct {
	id          *uuid.UUID
	typ, status *string
	validUntil  *civil.Date
	days        *int
}

func (r nextExpiryRow) value() *NextExpiry {
	if r.id == nil {
		return nil
	}
	return &NextExpiry{DocumentID: *r.id, DocumentType: *r.typ, ValidUntil: *r.validUntil, DaysUntilExpiry: *r.days, Status: *r.status}
}

// expiredRows is the arrays of a list row's expired documents.
type expiredRows struct {
	ids    []uuid.UUID
	types  []string
	untils []civil.Date
}

// value is the expired documents, each as a NextExpiry (never nil: a
// driver without one has an empty list).
func (r expiredRows) value(today civil.Date) []NextExpiry {
	out := make([]NextExpiry, len(r.ids))
	for i := range r.ids {
		out[i] = NextExpiry{DocumentID: r.ids[i], DocumentType: r.types[i], ValidUntil: r.untils[i],
			DaysUntilExpiry: today.DaysUntil(r.untils[i]), Status: documents.Status(true, &r.untils[i], today)}
	}
	return out
}

// count counts the filtered set (for a page past the end).
func (q *listQuery) count(ctx context.Context, db postgres.DBTX) (int, error) {
	total := `count(*) FROM drivers d WHERE ` + q.where()
	if q.storedTotal != "" {
		total = q.storedTotal
	}
	sql := `WITH co AS MATERIALIZED (` + companyFacts + ` WHERE c.id = $1)
		SELECT ` + total
	var n int
	err := db.QueryRow(ctx, sql, q.args.Values...).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count drivers: %w", err)
	}
	return n, nil
}
