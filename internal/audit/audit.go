// Package audit writes the audit trail (docs/audit.md) inside the caller's
// database transaction, and lists it for admins and HR managers.
package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Entry is one change to record.
type Entry struct {
	EntityType string // driver, document, document_file, finance_transaction, penalty, finance_period, rating_config
	EntityID   uuid.UUID
	Action     string // created, updated, deleted, document.uploaded, penalty.disputed, …
	OldValues  map[string]any
	NewValues  map[string]any
}

// Record writes an entry with the caller's identity and client facts, on the
// same transaction as the change it describes.
func Record(ctx context.Context, tx postgres.DBTX, p auth.Principal, e Entry) error {
	oldJSON, err := jsonOrNil(e.OldValues)
	if err != nil {
		return err
	}
	newJSON, err := jsonOrNil(e.NewValues)
	if err != nil {
		return err
	}
	var userID *uuid.UUID
	if p.UserID != uuid.Nil {
		userID = &p.UserID
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO audit_logs (company_id, entity_type, entity_id, user_id, user_name, action, old_values, new_values, ip_address, user_agent)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), $6, $7, $8, NULLIF($9, ''), NULLIF($10, ''))`,
		p.CompanyID, e.EntityType, e.EntityID, userID, p.Name, e.Action, oldJSON, newJSON, p.IPAddress, truncate(p.UserAgent, 500))
	if err != nil {
		return fmt.Errorf("record audit %s %s %s: %w", e.EntityType, e.Action, e.EntityID, err)
	}
	return nil
}

// Diff returns the old and new values of the keys whose values differ, so an
// update's audit row holds only the changed fields.
func Diff(before, after map[string]any) (oldValues, newValues map[string]any) {
	oldValues, newValues = map[string]any{}, map[string]any{}
	for k, nv := range after {
		ov, had := before[k]
		if had && reflect.DeepEqual(normalize(ov), normalize(nv)) {
			continue
		}
		oldValues[k] = ov
		newValues[k] = nv
	}
	return oldValues, newValues
}

// normalize compares values by their JSON form, so a decimal and a string of
// the same amount, or two equal dates, count as unchanged.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func jsonOrNil(m map[string]any) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode audit values: %w", err)
	}
	return b, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// Log is one audit row as the API shows it.
type Log struct {
	ID         uuid.UUID       `json:"id"`
	EntityType string          `json:"entity_type"`
	EntityID   uuid.UUID       `json:"entity_id"`
	UserID     *uuid.UUID      `json:"user_id"`
	User       *string         `json:"user"`
	Action     string          `json:"action"`
	OldValues  json.RawMessage `json:"old_values"`
	NewValues  json.RawMessage `json:"new_values"`
	IPAddress  *string         `json:"ip_address"`
	UserAgent  *string         `json:"user_agent"`
	CreatedAt  time.Time       `json:"created_at"`
}

// Filter narrows the audit list. Several values of one field mean OR,
// different fields AND (docs/lists.md); an empty list does not filter.
type Filter struct {
	EntityTypes []string
	EntityIDs   []uuid.UUID
	UserIDs     []uuid.UUID
	From, To    *time.Time
	Page        int
	PerPage     int
}

// EntityTypes are the values of entity_type.
var EntityTypes = []string{"driver", "document", "document_file", "finance_transaction", "penalty", "finance_period", "rating_config"}

// Service reads the audit log.
type Service struct{ db *pgxpool.Pool }

// NewService returns an audit service.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db} }

// List returns a page of the company's audit rows, newest first, and the
// total. company is Principal.Scope(auth.AuditRead).
func (s *Service) List(ctx context.Context, p auth.Principal, company auth.Ref, f Filter) ([]Log, int, error) {
	if err := company.Check(p, auth.AuditRead); err != nil {
		return nil, 0, err
	}
	for _, et := range f.EntityTypes {
		if !slices.Contains(EntityTypes, et) {
			return nil, 0, apperr.Invalid("entity_type", "msg.audit.entity_type")
		}
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, entity_type, entity_id, user_id, user_name, action, old_values, new_values, ip_address, user_agent, created_at,
			count(*) OVER ()
		FROM audit_logs
		WHERE company_id = $1
			AND (cardinality($2::text[]) = 0 OR entity_type = ANY ($2))
			AND (cardinality($3::uuid[]) = 0 OR entity_id = ANY ($3))
			AND (cardinality($4::uuid[]) = 0 OR user_id = ANY ($4))
			AND ($5::timestamptz IS NULL OR created_at >= $5)
			AND ($6::timestamptz IS NULL OR created_at <= $6)
		ORDER BY created_at DESC, id DESC
		LIMIT $7 OFFSET $8`,
		company.CompanyID(), nonNil(f.EntityTypes), nonNil(f.EntityIDs), nonNil(f.UserIDs), f.From, f.To, f.PerPage, (f.Page-1)*f.PerPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list audit logs: %w", err)
	}
	defer rows.Close()
	out := []Log{}
	total := 0
	for rows.Next() {
		var l Log
		if err := rows.Scan(&l.ID, &l.EntityType, &l.EntityID, &l.UserID, &l.User, &l.Action, &l.OldValues, &l.NewValues, &l.IPAddress, &l.UserAgent, &l.CreatedAt, &total); err != nil {
			return nil, 0, fmt.Errorf("scan audit log: %w", err)
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list audit logs: %w", err)
	}
	if len(out) == 0 && f.Page > 1 {
		// count(*) OVER () is unknown past the last page; count separately.
		err := s.db.QueryRow(ctx, `SELECT count(*) FROM audit_logs WHERE company_id = $1
			AND (cardinality($2::text[]) = 0 OR entity_type = ANY ($2)) AND (cardinality($3::uuid[]) = 0 OR entity_id = ANY ($3))
			AND (cardinality($4::uuid[]) = 0 OR user_id = ANY ($4))
			AND ($5::timestamptz IS NULL OR created_at >= $5) AND ($6::timestamptz IS NULL OR created_at <= $6)`,
			company.CompanyID(), nonNil(f.EntityTypes), nonNil(f.EntityIDs), nonNil(f.UserIDs), f.From, f.To).Scan(&total)
		if err != nil {
			return nil, 0, fmt.Errorf("count audit logs: %w", err)
		}
	}
	return out, total, nil
}

// nonNil sends an empty list rather than NULL, so cardinality() is 0.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
