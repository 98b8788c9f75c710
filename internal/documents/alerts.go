package documents

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
)

// defaultLeadDays are the document types whose alert window is not the
// usual one (docs/drivers-and-documents.md, "Alert windows"): identity and
// residence papers take longest to renew, A1 certificates less.
var defaultLeadDays = map[string]int{
	"passport": 90, "visa_biometrics": 90, "residence_permit": 90, "work_permit": 90,
	"a1_eu": 60, "a1_switzerland": 60,
}

// otherLeadDays is the alert window of every other type.
const otherLeadDays = 30

// MaxLeadDays is the widest default alert window.
const MaxLeadDays = 90

// LeadDays is how many days before its valid_until a document of the type
// enters its alert window. These are the defaults of every company; the
// only place that knows them, so per-company document rules can replace
// this function's answer.
func LeadDays(docType string) int {
	if n, ok := defaultLeadDays[docType]; ok {
		return n
	}
	return otherLeadDays
}

// Alert stages of a document with a file and a valid_until: in its alert
// window (StageLead, 15 days or more left), expiring soon (fewer than 15
// days), expired.
const (
	StageLead         = "lead"
	StageExpiringSoon = "expiring_soon"
	StageExpired      = "expired"
)

// Stages are the alert stages, most urgent first.
var Stages = []string{StageExpired, StageExpiringSoon, StageLead}

// Stage is the alert stage of a document: "" when it has no file, no
// valid_until, or is outside its type's alert window.
func Stage(docType string, hasFile bool, validUntil *civil.Date, today civil.Date) string {
	if !hasFile || validUntil == nil {
		return ""
	}
	days := today.DaysUntil(*validUntil)
	switch {
	case days < 0:
		return StageExpired
	case days < 15:
		return StageExpiringSoon
	case days <= LeadDays(docType):
		return StageLead
	}
	return ""
}

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

// Due lists the documents of the company's live drivers that are in their
// alert window, by stage (Stages order), each stage with its count and at
// most limit documents. company is the guard's collection Ref (a driver
// caller's narrows to its own documents).
func (s *Service) Due(ctx context.Context, p auth.Principal, company auth.Ref, limit int) ([]DueStage, error) {
	if err := company.Check(p, auth.DocumentsList); err != nil {
		return nil, err
	}
	today := p.Today()
	types, days := leadTable()
	// The index range valid_until <= today + MaxLeadDays finds the
	// candidates; each type's own window is then applied.
	rows, err := s.db.Query(ctx, `
		WITH due AS (
			SELECT dd.id, dd.type, dd.driver_id, d.first_name || ' ' || d.last_name AS name, d.internal_number,
				dd.valid_until, dd.valid_until - $2::date AS days, l.lead
			FROM driver_documents dd
			JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
			CROSS JOIN LATERAL (
				SELECT COALESCE((SELECT t.days FROM unnest($3::text[], $4::int[]) AS t(type, days) WHERE t.type = dd.type), $5::int) AS lead
			) l
			WHERE dd.company_id = $1 AND dd.current_file_id IS NOT NULL
				AND dd.valid_until <= $2::date + $6::int AND dd.valid_until - $2::date <= l.lead
				AND ($8::uuid IS NULL OR dd.driver_id = $8)
		), staged AS (
			SELECT due.*, CASE WHEN days < 0 THEN 'expired' WHEN days < 15 THEN 'expiring_soon' ELSE 'lead' END AS stage
			FROM due
		)
		SELECT id, type, driver_id, name, internal_number, valid_until, days, lead, stage, n
		FROM (
			SELECT staged.*, row_number() OVER (PARTITION BY stage ORDER BY valid_until, internal_number, type) AS rn,
				count(*) OVER (PARTITION BY stage) AS n
			FROM staged
		) x
		WHERE rn <= $7
		ORDER BY valid_until, internal_number, type`,
		company.CompanyID(), today, types, days, otherLeadDays, MaxLeadDays, limit, company.Only())
	if err != nil {
		return nil, fmt.Errorf("documents due: %w", err)
	}
	defer rows.Close()
	stages := emptyStages()
	at := map[string]*DueStage{}
	for i := range stages {
		at[stages[i].Stage] = &stages[i]
	}
	for rows.Next() {
		var d DueDocument
		var n int
		if err := rows.Scan(&d.ID, &d.Type, &d.DriverID, &d.DriverName, &d.DriverNumber, &d.ValidUntil, &d.DaysLeft,
			&d.LeadDaysOfType, &d.Stage, &n); err != nil {
			return nil, fmt.Errorf("scan due document: %w", err)
		}
		d.Status = Status(true, &d.ValidUntil, today)
		st := at[d.Stage]
		st.Count = n
		st.Documents = append(st.Documents, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("documents due: %w", err)
	}
	return stages, nil
}

func emptyStages() []DueStage {
	out := make([]DueStage, len(Stages))
	for i, st := range Stages {
		out[i] = DueStage{Stage: st}
	}
	return out
}

// leadTable is LeadDays as two arrays (type, days) for SQL; types not in
// it take otherLeadDays.
func leadTable() ([]string, []int) {
	var types []string
	var days []int
	for t, n := range defaultLeadDays {
		types = append(types, t)
		days = append(days, n)
	}
	return types, days
}
