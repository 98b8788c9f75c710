package documents

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// The company's documents by expiry, one row a document
// (docs/drivers-and-documents.md, "Documents by expiry"): GET
// /api/v0/documents and the "Documents expiring" page.

// MaxExpiringWithin is the largest expiring_within, in days.
const MaxExpiringWithin = 366

// HolderTypes are the kinds of record a document belongs to.
var HolderTypes = []string{"driver", "vehicle", "trailer"}

// ExpirySorts are the orders of the list: valid_until (the default), the
// driver (its internal number) or the type (the company's type order),
// each followed by the others and then the id.
var ExpirySorts = []string{"valid_until", "driver", "type"}

// ExpiryParams are the list's filters, order and page. Several values of
// one filter mean OR, different filters AND (docs/lists.md).
type ExpiryParams struct {
	// ExpiringWithin keeps documents with a current file whose own
	// valid_until is from today to today+N days, both included, today in
	// the company's time zone; documents already expired are not in it
	// (Status expired finds those). nil: no filter.
	ExpiringWithin *int
	// Status keeps documents whose effective status (the validity chains
	// applied) is one of these.
	Status []string
	// Type keeps documents of these types.
	Type []string
	// HolderType keeps documents of these kinds of holder (none: all).
	HolderType []string
	// OfficeIDs keeps documents of drivers, vehicles and trailers of
	// these offices.
	OfficeIDs []uuid.UUID
	// IncludeInactive lists the documents of every live holder; without
	// it only of drivers who are active or on leave and of vehicles and
	// trailers that are active or in service.
	IncludeInactive bool
	SortBy          string // ExpirySorts; "" valid_until
	SortOrder       string // asc (default), desc
	Page            paging.Request
}

// Holder names the record a document belongs to.
type Holder struct {
	InternalNumber string `json:"internal_number"`
	Name           string `json:"name"`
}

// ExpiryItem is one document of the list.
type ExpiryItem struct {
	ID         uuid.UUID   `json:"id"`
	HolderType string      `json:"holder_type"`
	HolderID   uuid.UUID   `json:"holder_id"`
	Holder     Holder      `json:"holder"`
	Type       string      `json:"type"`
	Number     *string     `json:"number"`
	ValidUntil *civil.Date `json:"valid_until"`
	// DaysUntilExpiry is null without a valid_until.
	DaysUntilExpiry *int `json:"days_until_expiry"`
	// Status is the document's own, EffectiveStatus the worse of its own
	// and its cap's; LimitedBy is the capping document's type while the
	// cap is the worse (docs/drivers-and-documents.md, "Validity chains").
	Status          string  `json:"status"`
	EffectiveStatus string  `json:"effective_status"`
	LimitedBy       *string `json:"limited_by"`
}

// ExpiryStatus is an ExpiryItem without the number, for a caller who sees
// statuses only (the dispatcher): the key is absent, not null.
type ExpiryStatus struct {
	ID              uuid.UUID   `json:"id"`
	HolderType      string      `json:"holder_type"`
	HolderID        uuid.UUID   `json:"holder_id"`
	Holder          Holder      `json:"holder"`
	Type            string      `json:"type"`
	ValidUntil      *civil.Date `json:"valid_until"`
	DaysUntilExpiry *int        `json:"days_until_expiry"`
	Status          string      `json:"status"`
	EffectiveStatus string      `json:"effective_status"`
	LimitedBy       *string     `json:"limited_by"`
}

// StatusOnly is the item without its number.
func (it ExpiryItem) StatusOnly() ExpiryStatus {
	return ExpiryStatus{ID: it.ID, HolderType: it.HolderType, HolderID: it.HolderID, Holder: it.Holder, Type: it.Type,
		ValidUntil: it.ValidUntil, DaysUntilExpiry: it.DaysUntilExpiry, Status: it.Status, EffectiveStatus: it.EffectiveStatus,
		LimitedBy: it.LimitedBy}
}

// ExpiryList is a page of the list.
type ExpiryList struct {
	paging.Page[ExpiryItem]
	// NumbersShown: the caller sees the documents' numbers (a dispatcher
	// sees statuses only, and the items' Number is nil).
	NumbersShown bool
}

// Expiring returns a page of the caller's company's documents by expiry.
// read fills the parameters once the caller may list them (a query's 400
// and 422 come after the role's 403).
func (s *Service) Expiring(ctx context.Context, p auth.Principal, read func(*ExpiryParams) error) (ExpiryList, error) {
	numbers, err := expiryList(p)
	if err != nil {
		return ExpiryList{}, err
	}
	var ep ExpiryParams
	if err := read(&ep); err != nil {
		return ExpiryList{}, err
	}
	if err := ep.normalize(); err != nil {
		return ExpiryList{}, err
	}
	ep.Page = ep.Page.Or(20)
	out := ExpiryList{NumbersShown: numbers}
	q := expiryQuery{params: ep, companyID: p.CompanyID, today: p.Today(), numbers: numbers}
	total := 0
	rows, err := s.db.Query(ctx, q.sql(true), q.args.Values...)
	if err != nil {
		return ExpiryList{}, fmt.Errorf("documents by expiry: %w", err)
	}
	items, err := postgres.AppendRows(nil, rows, func(row pgx.Row, it *ExpiryItem) error {
		return q.scan(row, it, &total)
	})
	if err != nil {
		return ExpiryList{}, fmt.Errorf("documents by expiry: %w", err)
	}
	if len(items) == 0 && ep.Page.Number > 1 {
		// Past the end, so no row carried the total.
		if err := s.db.QueryRow(ctx, q.countSQL(), q.args.Values...).Scan(&total); err != nil {
			return ExpiryList{}, fmt.Errorf("count documents by expiry: %w", err)
		}
	}
	out.Page = paging.New(items, total, ep.Page)
	return out, nil
}

// EachExpiring calls fn for every document of the filtered list, in its
// order (ep's paging is ignored), from one statement whose rows stream as
// they are read. The checks (the role, then read's parameters and the
// filter values) come first, before fn is called; numbers says whether the
// caller sees the documents' numbers.
func (s *Service) EachExpiring(ctx context.Context, p auth.Principal, read func(*ExpiryParams) error, fn func(it ExpiryItem, numbers bool) error) error {
	numbers, err := expiryList(p)
	if err != nil {
		return err
	}
	var ep ExpiryParams
	if err := read(&ep); err != nil {
		return err
	}
	if err := ep.normalize(); err != nil {
		return err
	}
	q := expiryQuery{params: ep, companyID: p.CompanyID, today: p.Today(), numbers: numbers}
	rows, err := s.db.Query(ctx, q.sql(false), q.args.Values...)
	if err != nil {
		return fmt.Errorf("export documents by expiry: %w", err)
	}
	defer rows.Close()
	var total int
	for rows.Next() {
		var it ExpiryItem
		if err := q.scan(rows, &it, &total); err != nil {
			return fmt.Errorf("export documents by expiry: %w", err)
		}
		if err := fn(it, numbers); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export documents by expiry: %w", err)
	}
	return nil
}

// normalize validates the filter and sort values (422).
func (ep *ExpiryParams) normalize() error {
	var v apperr.Validation
	if n := ep.ExpiringWithin; n != nil && (*n < 1 || *n > MaxExpiringWithin) {
		v.Add("expiring_within", "msg.list.expiring_within", "max", MaxExpiringWithin)
	}
	for _, st := range ep.Status {
		if !slices.Contains(Statuses, st) {
			v.Add("status", "msg.list.document_status")
			break
		}
	}
	for _, t := range ep.Type {
		if !ValidTypeCode(t) {
			v.Add("type", "msg.list.document_type")
			break
		}
	}
	for _, h := range ep.HolderType {
		if !slices.Contains(HolderTypes, h) {
			v.Add("holder_type", "msg.list.holder_type")
			break
		}
	}
	if ep.SortBy != "" && !slices.Contains(ExpirySorts, ep.SortBy) {
		v.Add("sort_by", "msg.list.sort_by", "allowed", ExpirySorts)
	}
	if ep.SortOrder != "" && ep.SortOrder != "asc" && ep.SortOrder != "desc" {
		v.Add("sort_order", "msg.list.sort_order")
	}
	return v.Err()
}

// lists reports whether the holder filter lets documents of holder type h
// in.
func (ep ExpiryParams) lists(h string) bool {
	return len(ep.HolderType) == 0 || slices.Contains(ep.HolderType, h)
}

// expiryQuery builds the list's statement from fixed SQL fragments; every
// value travels as an argument.
type expiryQuery struct {
	params    ExpiryParams
	companyID uuid.UUID
	today     civil.Date
	numbers   bool
	args      postgres.Args
	// office is the argument of the office filter ("" without one).
	office string
}

// expiryOrders are the list's orders by sort_by: the first key takes the
// direction asked, the others stay ascending; undated documents come last
// either way, and the id breaks the last tie.
var expiryOrders = map[string][]string{
	"valid_until": {"b.valid_until %s NULLS LAST", "b.id"},
	"driver": {"array_position(ARRAY['driver', 'vehicle', 'trailer'], b.holder_type) %[1]s, b.seq %[1]s",
		"array_position((SELECT type_order FROM co), b.type)", "b.id"},
	"type": {"array_position((SELECT type_order FROM co), b.type) %s", "b.valid_until NULLS LAST", "b.id"},
}

// sql is the list's statement: the documents the filters keep, joined
// with their drivers (d) and effective dates (e: document_effective, one
// row a document of a type that is not retired, so retired types are left
// out), in order, a page of them with the total when paged (else all);
// then, for the rows returned only, the capping document of those whose
// cap is the worse (konvoj_document_statuses on the driver's chained
// types). $1 is the company, $2 today.
//
// The rows are numbered in the list's order (pos) and the page is cut by
// that number. Ordered by the keys themselves under a LIMIT, the planner
// counted on stopping early: for sort_by=driver it walked the drivers by
// number and matched each against every document found, about 30 times
// slower on 4,000 drivers (EXPLAIN ANALYZE, docs/drivers-and-documents.md).
func (q *expiryQuery) sql(paged bool) string {
	where := q.where()
	total, limit := "0::bigint", ""
	if paged {
		total = "count(*) OVER ()"
		limit = "\n\t\t\tLIMIT " + q.args.Add(q.params.Page.Size) + " OFFSET " + q.args.Add(q.params.Page.Offset())
	}
	return expiryFacts + `, base AS (` + q.base(where) + `
		), found AS (
			SELECT b.*, row_number() OVER (ORDER BY ` + q.order() + `) AS pos, ` + total + ` AS total
			FROM base b
			ORDER BY pos` + limit + `
		)
		SELECT r.id, r.holder_type, r.holder_id, r.internal_number, r.name, r.type, r.number, r.valid_until,
			konvoj_document_status(r.has_file, r.valid_until, co.today) AS own,
			konvoj_document_status(r.effective_file, r.until, co.today) AS effective, lb.limited_by, r.total
		FROM found r CROSS JOIN co
		LEFT JOIN LATERAL (
			SELECT st.limited_by FROM konvoj_document_statuses($1, r.holder_id, co.today, co.chains, co.retired, co.chained) st
			WHERE st.id = r.id
		) lb ON r.holder_type = 'driver' AND r.type = ANY (co.capped)
			AND konvoj_status_rank(konvoj_document_status(r.effective_file, r.until, co.today))
				> konvoj_status_rank(konvoj_document_status(r.has_file, r.valid_until, co.today))
		ORDER BY r.pos`
}

// countSQL counts the documents the filters keep (a page past the end).
func (q *expiryQuery) countSQL() string {
	where := q.where()
	return expiryFacts + `
		SELECT count(*) FROM (` + q.base(where) + `) b`
}

// base is the documents the filters keep, one row each with its holder's
// number and name (a vehicle or a trailer is named by its plate) and its
// effective date: a driver's from document_effective (its validity
// chains), a vehicle's or a trailer's its own. Each holder type the
// holder_type filter lets in is a branch of its own; a vehicle's or a
// trailer's branch leaves out retired types and the types that do not
// apply to the vehicle's kind.
func (q *expiryQuery) base(where string) string {
	var branches []string
	if q.params.lists(HolderDriver) {
		conds := []string{where}
		if !q.params.IncludeInactive {
			conds = append(conds, "d.status IN ('active', 'on_leave')")
		}
		if q.office != "" {
			conds = append(conds, "d.office_id = ANY ("+q.office+"::uuid[])")
		}
		branches = append(branches, `
			SELECT dd.id, dd.holder_type, dd.holder_id, d.internal_number, concat_ws(' ', d.first_name, d.last_name) AS name,
				d.internal_seq AS seq, dd.type, dd.number, dd.valid_until, dd.current_file_id IS NOT NULL AS has_file,
				e.has_file AS effective_file, e.until
			FROM driver_documents dd
			JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
			JOIN document_effective e ON e.document_id = dd.id AND e.company_id = dd.company_id
			WHERE `+strings.Join(conds, "\n\t\t\t\tAND "))
	}
	for _, h := range []struct{ holder, table, active string }{
		{HolderVehicle, "vehicles", "'active', 'in_service'"},
		{HolderTrailer, "trailers", "'active', 'in_service'"},
	} {
		if !q.params.lists(h.holder) {
			continue
		}
		conds := []string{where, "dd.holder_type = '" + h.holder + "'",
			"konvoj_fleet_type_applies(dd.holder_type, d.type, dd.type)",
			"dd.type <> ALL (konvoj_retired_document_types($1, '" + h.holder + "'))"}
		if !q.params.IncludeInactive {
			conds = append(conds, "d.status IN ("+h.active+")")
		}
		if q.office != "" {
			conds = append(conds, "d.office_id = ANY ("+q.office+"::uuid[])")
		}
		branches = append(branches, `
			SELECT dd.id, dd.holder_type, dd.holder_id, d.internal_number, coalesce(d.plate_number, d.internal_number) AS name,
				d.internal_seq AS seq, dd.type, dd.number, dd.valid_until, dd.current_file_id IS NOT NULL AS has_file,
				e.has_file AS effective_file, e.until
			FROM driver_documents dd
			JOIN `+h.table+` d ON d.id = dd.holder_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
			CROSS JOIN LATERAL (SELECT dd.current_file_id IS NOT NULL AS has_file,
				CASE WHEN dd.current_file_id IS NOT NULL THEN dd.valid_until END AS until) e
			WHERE `+strings.Join(conds, "\n\t\t\t\tAND "))
	}
	if len(branches) == 0 {
		return `SELECT NULL::uuid AS id, ''::text AS holder_type, NULL::uuid AS holder_id, ''::text AS internal_number, ''::text AS name,
			0::bigint AS seq, ''::text AS type, NULL::text AS number, NULL::date AS valid_until, false AS has_file,
			false AS effective_file, NULL::date AS until WHERE false`
	}
	return strings.Join(branches, "\n\t\t\tUNION ALL")
}

// expiryFacts are the company's facts the list reads (co): today ($2),
// the drivers' validity chains, capped and chained types and retired ones,
// and the type order (the drivers', the vehicles', the trailers').
const expiryFacts = `WITH co AS MATERIALIZED (
			SELECT $2::date AS today, f.chains, f.capped, f.chained, f.retired,
				konvoj_document_type_order($1) || konvoj_document_type_order($1, 'vehicle')
					|| konvoj_document_type_order($1, 'trailer') AS type_order
			FROM company_document_facts f WHERE f.company_id = $1
		)`

// where is the filters' condition on dd (driver_documents) and e (the
// effective date) that every holder type's branch shares (base adds the
// holder's: its status and office).
func (q *expiryQuery) where() string {
	q.args = postgres.Args{Values: []any{q.companyID, q.today}}
	ep := q.params
	conds := []string{"dd.company_id = $1"}
	q.office = ""
	if len(ep.OfficeIDs) > 0 {
		q.office = q.args.Add(ep.OfficeIDs)
	}
	if len(ep.Type) > 0 {
		conds = append(conds, "dd.type = ANY ("+q.args.Add(ep.Type)+"::text[])")
	}
	if ep.ExpiringWithin != nil {
		// The document's own valid_until, an index range of
		// driver_documents_company_valid_until_idx; the bounds are scalar
		// subqueries, so that the range is an index condition under the
		// row-level security policies (EffectiveStatusRanges).
		conds = append(conds, `dd.current_file_id IS NOT NULL
				AND dd.valid_until BETWEEN (SELECT today FROM co) AND (SELECT today + `+q.args.Add(*ep.ExpiringWithin)+`::int FROM co)`)
	}
	if len(ep.Status) > 0 {
		ranges := make([]string, len(ep.Status))
		for i, st := range ep.Status {
			ranges[i] = "(" + EffectiveStatusRanges[st] + ")"
		}
		conds = append(conds, "("+strings.Join(ranges, " OR ")+")")
	}
	return strings.Join(conds, "\n\t\t\t\tAND ")
}

// order is the ORDER BY of the list's sort.
func (q *expiryQuery) order() string {
	by := q.params.SortBy
	if by == "" {
		by = "valid_until"
	}
	dir := "ASC"
	if q.params.SortOrder == "desc" {
		dir = "DESC"
	}
	keys := slices.Clone(expiryOrders[by])
	keys[0] = fmt.Sprintf(keys[0], dir)
	return strings.Join(keys, ", ")
}

// scan reads a row of the statement into it (and the total).
func (q *expiryQuery) scan(row pgx.Row, it *ExpiryItem, total *int) error {
	var number *string
	if err := row.Scan(&it.ID, &it.HolderType, &it.HolderID, &it.Holder.InternalNumber, &it.Holder.Name, &it.Type, &number, &it.ValidUntil,
		&it.Status, &it.EffectiveStatus, &it.LimitedBy, total); err != nil {
		return err
	}
	if q.numbers {
		it.Number = number
	}
	if it.ValidUntil != nil {
		n := q.today.DaysUntil(*it.ValidUntil)
		it.DaysUntilExpiry = &n
	}
	return nil
}

// EffectiveStatusRanges are, per document status, the documents whose effective
// status konvoj_document_status(e.has_file, e.until, today) is that one, as
// conditions on until (document_effective, alias e; alias co for the
// company with its today) that the index document_effective_company_until_idx
// can serve (it carries driver_id, type and has_file).
// TestStatusRangesMatchStatusFunction keeps the two in step. Today and the
// thresholds are scalar subqueries, so that each is a plan parameter: under
// the row-level security policies an index condition may use leakproof
// operators only, and date + integer is not one (written "(SELECT today
// FROM co) + 15", the bound was a filter over every later document).
var EffectiveStatusRanges = map[string]string{
	"no_data": "e.until IS NULL AND NOT e.has_file",
	"valid":   "e.has_file AND (e.until IS NULL OR e.until > (SELECT today + 30 FROM co))",
	"warning": "e.has_file AND " +
		"e.until BETWEEN (SELECT today + 15 FROM co) AND (SELECT today + 30 FROM co)",
	"expiring_soon": "e.has_file AND " +
		"e.until >= (SELECT today FROM co) AND e.until < (SELECT today + 15 FROM co)",
	"expired": "e.has_file AND e.until < (SELECT today FROM co)",
}
