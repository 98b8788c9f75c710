package documents

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
)

// Alert stages of a document with a file and a valid_until
// (docs/drivers-and-documents.md, "Alert windows"): inside its type's lead
// days (the company's document rules, docs/alerts.md) with 15 days or more
// left (StageLead), expiring soon (fewer than 15 days), expired.
const (
	StageLead         = "lead"
	StageExpiringSoon = "expiring_soon"
	StageExpired      = "expired"
)

// Stages are the alert stages, most urgent first.
var Stages = []string{StageExpired, StageExpiringSoon, StageLead}

// DueDocument is a document in its alert window, with its driver.
type DueDocument struct {
	ID             uuid.UUID
	Type           string
	DriverID       uuid.UUID
	DriverName     string
	DriverNumber   string
	ValidUntil     civil.Date
	DaysLeft       int
	Status         string
	Stage          string
	LeadDaysOfType int
}

// DueStage is one stage's documents: how many there are and the first
// ones (by valid_until, the longest expired first).
type DueStage struct {
	Stage     string
	Count     int
	Documents []DueDocument
}

// DueList is the documents in their alert window by stage (Stages order)
// and the longest lead time of the company's rules.
type DueList struct {
	Stages      []DueStage
	MaxLeadDays int
}

// Due lists the documents of the company's live active drivers (status
// active or on_leave, as the home pages count them: docs/web-app.md) that
// are in their alert window (each type's lead days from the company's
// document rules), by stage, each stage with its count and at most limit
// documents. A driver caller's list is narrowed to its own documents,
// whatever its status.
func (s *Service) Due(ctx context.Context, p auth.Principal, limit int) (DueList, error) {
	only, err := collection(p, auth.DocumentsList)
	if err != nil {
		return DueList{}, err
	}
	today := p.Today()
	out := DueList{Stages: emptyStages()}
	// The index range valid_until <= today + the longest lead finds the
	// candidates; each type's own window is then applied.
	rows, err := s.db.Query(ctx, `
		WITH rules AS (SELECT document_type, lead_days FROM konvoj_document_rules($1)),
		due AS (
			SELECT dd.id, dd.type, dd.driver_id, d.first_name || ' ' || d.last_name AS name, d.internal_number,
				d.internal_seq, dd.valid_until, dd.valid_until - $2::date AS days, r.lead_days AS lead
			FROM driver_documents dd
			JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
			JOIN rules r ON r.document_type = dd.type
			WHERE dd.company_id = $1 AND dd.current_file_id IS NOT NULL
				AND dd.valid_until <= $2::date + greatest((SELECT max(lead_days) FROM rules), 14)
				AND dd.valid_until - $2::date <= greatest(r.lead_days, 14)
				AND ($4::uuid IS NULL OR dd.driver_id = $4)
				AND ($4::uuid IS NOT NULL OR d.status IN ('active', 'on_leave'))
		), staged AS (
			SELECT due.*, CASE WHEN days < 0 THEN 'expired' WHEN days < 15 THEN 'expiring_soon' ELSE 'lead' END AS stage
			FROM due
		)
		SELECT id, type, driver_id, name, internal_number, valid_until, days, lead, stage, n,
			(SELECT max(lead_days) FROM rules)
		FROM (
			SELECT staged.*, row_number() OVER (PARTITION BY stage ORDER BY valid_until, internal_seq, type) AS rn,
				count(*) OVER (PARTITION BY stage) AS n
			FROM staged
		) x
		WHERE rn <= $3
		ORDER BY valid_until, internal_seq, type`,
		p.CompanyID, today, limit, only)
	if err != nil {
		return DueList{}, fmt.Errorf("documents due: %w", err)
	}
	defer rows.Close()
	at := map[string]*DueStage{}
	for i := range out.Stages {
		at[out.Stages[i].Stage] = &out.Stages[i]
	}
	for rows.Next() {
		var d DueDocument
		var n int
		if err := rows.Scan(&d.ID, &d.Type, &d.DriverID, &d.DriverName, &d.DriverNumber, &d.ValidUntil, &d.DaysLeft,
			&d.LeadDaysOfType, &d.Stage, &n, &out.MaxLeadDays); err != nil {
			return DueList{}, fmt.Errorf("scan due document: %w", err)
		}
		d.Status = Status(true, &d.ValidUntil, today)
		st := at[d.Stage]
		st.Count = n
		st.Documents = append(st.Documents, d)
	}
	if err := rows.Err(); err != nil {
		return DueList{}, fmt.Errorf("documents due: %w", err)
	}
	return out, nil
}

func emptyStages() []DueStage {
	out := make([]DueStage, len(Stages))
	for i, st := range Stages {
		out[i] = DueStage{Stage: st}
	}
	return out
}
