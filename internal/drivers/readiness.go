package drivers

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
)

// NotReadyDriver is an active driver who is not ready, and why: the
// required document types that are not usable, with their status
// (no_data or expired).
type NotReadyDriver struct {
	ID             uuid.UUID
	FirstName      string
	LastName       string
	InternalNumber string
	Missing        []Shortfall
}

// Shortfall is a required document type that keeps a driver from being
// ready, and its effective status; LimitedBy is the capping type when the
// document counts as that status only because of its validity chain.
type Shortfall struct {
	DocumentID uuid.UUID
	Type       string
	Status     string
	LimitedBy  string
}

// NotReady lists the active drivers that are not ready (is_ready of
// docs/drivers-and-documents.md) with the required document types that
// are not valid, warning or expiring_soon: the first page of limit drivers
// (by internal number) and the count of all. Drivers not active are not
// ready by definition and are left out. A driver caller sees only its own
// record (nothing when linked to none).
func (s *Service) NotReady(ctx context.Context, p auth.Principal, limit int) (paging.Page[NotReadyDriver], error) {
	only, err := collection(p, auth.DriversRead)
	if err != nil {
		return paging.Page[NotReadyDriver]{}, err
	}
	rows, err := s.db.Query(ctx, `
		WITH co AS MATERIALIZED (`+companyFacts+` WHERE c.id = $1),
		o AS MATERIALIZED (SELECT konvoj_document_type_order($1) AS type_order),
		short AS (
			SELECT d.id, d.first_name, d.last_name, d.internal_number, d.internal_seq,
				array_agg(x.id ORDER BY array_position(o.type_order, x.type), x.type) AS doc_ids,
				array_agg(x.type ORDER BY array_position(o.type_order, x.type), x.type) AS types,
				array_agg(x.status ORDER BY array_position(o.type_order, x.type), x.type) AS statuses,
				array_agg(coalesce(x.limited_by, '') ORDER BY array_position(o.type_order, x.type), x.type) AS limited_by
			FROM drivers d
			CROSS JOIN co
			CROSS JOIN o
			CROSS JOIN LATERAL konvoj_document_statuses(d.company_id, d.id, co.today, co.chains, co.retired) x
			WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.status = 'active'
				AND ($3::uuid IS NULL OR d.id = $3)
				AND x.type = ANY `+requiredOf+`
				AND x.status NOT IN ('valid', 'warning', 'expiring_soon')
			GROUP BY d.id
		)
		SELECT id, first_name, last_name, internal_number, doc_ids, types, statuses, limited_by, count(*) OVER ()
		FROM short
		ORDER BY internal_seq, id
		LIMIT $2`, p.CompanyID, limit, only)
	if err != nil {
		return paging.Page[NotReadyDriver]{}, fmt.Errorf("drivers not ready: %w", err)
	}
	defer rows.Close()
	var out []NotReadyDriver
	total := 0
	for rows.Next() {
		var d NotReadyDriver
		var ids []uuid.UUID
		var types, statuses, limited []string
		if err := rows.Scan(&d.ID, &d.FirstName, &d.LastName, &d.InternalNumber, &ids, &types, &statuses, &limited, &total); err != nil {
			return paging.Page[NotReadyDriver]{}, fmt.Errorf("scan driver not ready: %w", err)
		}
		for i := range types {
			d.Missing = append(d.Missing, Shortfall{DocumentID: ids[i], Type: types[i], Status: statuses[i], LimitedBy: limited[i]})
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return paging.Page[NotReadyDriver]{}, fmt.Errorf("drivers not ready: %w", err)
	}
	return paging.New(out, total, paging.Request{Number: 1, Size: limit}), nil
}

// DocumentStatusCounts counts the company's live active drivers (status
// active or on_leave: ActiveStatuses) with at least one document in each of
// the statuses that call for action, expired, expiring_soon and warning
// (the drivers list's document_status and status filters, so a count and
// the list it links to agree). Expired comes from the days
// driver_expiry keeps (migrations/00037_driver_expiry.sql); the others from
// the range of effective dates from today to today+30 in
// document_effective (migrations/00039_document_effective.sql). Statuses no
// driver has are 0. It needs the documents list permission; a driver
// caller counts its own record only.
func (s *Service) DocumentStatusCounts(ctx context.Context, p auth.Principal) (map[string]int, error) {
	only, err := collection(p, auth.DocumentsList)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		WITH co AS MATERIALIZED (`+companyFacts+` WHERE c.id = $1)
		SELECT 'expired', count(*)
		FROM driver_expiry e
		JOIN drivers d ON d.id = e.driver_id AND d.deleted_at IS NULL AND d.status = ANY ($3::text[])
		WHERE e.company_id = $1 AND e.expired_from <= (SELECT today FROM co) AND ($2::uuid IS NULL OR d.id = $2)
		UNION ALL
		SELECT konvoj_document_status(true, e.until, (SELECT today FROM co)) AS status, count(DISTINCT e.driver_id)
		FROM document_effective e
		JOIN drivers d ON d.id = e.driver_id AND d.deleted_at IS NULL AND d.status = ANY ($3::text[])
		WHERE e.company_id = $1 AND ($2::uuid IS NULL OR d.id = $2) AND e.has_file
			AND e.until BETWEEN (SELECT today FROM co) AND (SELECT today + 30 FROM co)
		GROUP BY 1`, p.CompanyID, only, ActiveStatuses)
	if err != nil {
		return nil, fmt.Errorf("count drivers by document status: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			return nil, fmt.Errorf("scan document status count: %w", err)
		}
		out[st] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count drivers by document status: %w", err)
	}
	return out, nil
}
