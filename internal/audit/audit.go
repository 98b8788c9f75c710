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
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Entry is one change to record.
type Entry struct {
	EntityType string // driver, document, document_file, finance_transaction, penalty, finance_period, rating_config, document_rule
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

// RecordAll writes many entries with the caller's identity in one
// statement, as Record writes each (the driver import's rows, in its
// transaction).
func RecordAll(ctx context.Context, tx postgres.DBTX, p auth.Principal, entries []Entry) error {
	if len(entries) == 0 {
		return nil
	}
	n := len(entries)
	types, ids, actions := make([]string, n), make([]uuid.UUID, n), make([]string, n)
	olds, news := make([]*string, n), make([]*string, n)
	for i, e := range entries {
		oldJSON, err := jsonOrNil(e.OldValues)
		if err != nil {
			return err
		}
		newJSON, err := jsonOrNil(e.NewValues)
		if err != nil {
			return err
		}
		types[i], ids[i], actions[i] = e.EntityType, e.EntityID, e.Action
		olds[i], news[i] = textOrNil(oldJSON), textOrNil(newJSON)
	}
	var userID *uuid.UUID
	if p.UserID != uuid.Nil {
		userID = &p.UserID
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO audit_logs (company_id, entity_type, entity_id, user_id, user_name, action, old_values, new_values, ip_address, user_agent)
		SELECT $1, u.entity_type, u.entity_id, $2, NULLIF($3, ''), u.action, u.old_values::jsonb, u.new_values::jsonb,
			NULLIF($4, ''), NULLIF($5, '')
		FROM unnest($6::text[], $7::uuid[], $8::text[], $9::text[], $10::text[]) AS u(entity_type, entity_id, action, old_values, new_values)`,
		p.CompanyID, userID, p.Name, p.IPAddress, truncate(p.UserAgent, 500), types, ids, actions, olds, news)
	if err != nil {
		return fmt.Errorf("record %d audit rows: %w", n, err)
	}
	return nil
}

func textOrNil(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
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
	// Subject names the record for people (the web page); it is not part
	// of the API object.
	Subject Subject `json:"-"`
}

// Subject is what an audit row is about, in people's terms: the driver
// the record belongs to (the driver itself, or the driver of a document,
// document file, finance transaction, penalty or finance period) and, for
// a document or document file, the document's type. DriverID is nil for
// records of no driver (rating_config).
type Subject struct {
	DriverID      *uuid.UUID
	DriverName    string
	DriverDeleted bool
	DocumentID    *uuid.UUID
	DocumentType  string
	// Currency is the currency of a finance transaction, penalty or
	// finance period ("" for other records), for amounts whose row does
	// not name it.
	Currency string
}

// Filter narrows the audit list. Several values of one field mean OR,
// different fields AND (docs/lists.md); an empty list does not filter.
type Filter struct {
	EntityTypes []string
	EntityIDs   []uuid.UUID
	UserIDs     []uuid.UUID
	// DriverIDs keeps the rows about these drivers: each driver's own rows
	// and those of its documents, document files, finance transactions,
	// penalties and finance periods.
	DriverIDs []uuid.UUID
	// Actions keeps the rows of these actions.
	Actions  []string
	From, To *time.Time
	Page     paging.Request
}

// EntityTypes are the values of entity_type.
var EntityTypes = []string{"driver", "vehicle", "trailer", "document", "document_file", "finance_transaction", "penalty", "finance_period", "rating_config",
	"document_rule", "document_type", "webhook_endpoint", "user", "company", "transport_unit"}

// Actions are every action the services record, for the page's filter and
// texts (audit.action.<action>). TestEveryRecordedActionIsListed reads the
// code and fails on an action written anywhere that is not here.
var Actions = []string{"created", "updated", "deleted", "document.uploaded", "document.updated", "document.review_approved",
	"document.review_rejected", "document.imported", "import.completed", "penalty.created", "penalty.disputed", "penalty.accepted",
	"penalty.resolved", "penalty.evidence_added", "period.closed", "period.paid", "period.reopened", "webhook.secret_rotated",
	"deactivated", "reactivated", "assigned", "unassigned"}

// Service reads the audit log.
type Service struct{ db *pgxpool.Pool }

// NewService returns an audit service.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db} }

// filterSQL is the WHERE condition of a filter over audit_logs a; $1 is
// the company. The driver filter finds the driver's records through the
// tables' driver indexes and then their rows through
// audit_logs_company_entity_idx.
const filterSQL = `a.company_id = $1
			AND (cardinality($2::text[]) = 0 OR a.entity_type = ANY ($2))
			AND (cardinality($3::uuid[]) = 0 OR a.entity_id = ANY ($3))
			AND (cardinality($4::uuid[]) = 0 OR a.user_id = ANY ($4))
			AND ($5::timestamptz IS NULL OR a.created_at >= $5)
			AND ($6::timestamptz IS NULL OR a.created_at <= $6)
			AND (cardinality($7::uuid[]) = 0 OR (a.entity_type, a.entity_id) IN (
				SELECT 'driver', x FROM unnest($7::uuid[]) AS x
				UNION ALL SELECT 'document', dd.id FROM driver_documents dd WHERE dd.company_id = $1 AND dd.driver_id = ANY ($7)
				UNION ALL SELECT 'document_file', f.id FROM driver_documents dd JOIN document_files f ON f.document_id = dd.id
					WHERE dd.company_id = $1 AND dd.driver_id = ANY ($7)
				UNION ALL SELECT 'finance_transaction', t.id FROM finance_transactions t WHERE t.company_id = $1 AND t.driver_id = ANY ($7)
				UNION ALL SELECT 'penalty', pn.id FROM penalties pn WHERE pn.company_id = $1 AND pn.driver_id = ANY ($7)
				UNION ALL SELECT 'finance_period', fp.id FROM finance_periods fp WHERE fp.company_id = $1 AND fp.driver_id = ANY ($7)))
			AND (cardinality($8::text[]) = 0 OR a.action = ANY ($8))`

// subjectJoin finds the driver and document of audit row a (aliases sd,
// sdoc), for the rows of one page only.
const subjectJoin = `LEFT JOIN LATERAL (
			SELECT CASE a.entity_type
				WHEN 'driver' THEN a.entity_id
				WHEN 'document' THEN (SELECT dd.driver_id FROM driver_documents dd WHERE dd.company_id = a.company_id AND dd.id = a.entity_id)
				WHEN 'document_file' THEN (SELECT dd.driver_id FROM document_files f JOIN driver_documents dd ON dd.id = f.document_id
					WHERE f.company_id = a.company_id AND f.id = a.entity_id)
				WHEN 'finance_transaction' THEN (SELECT t.driver_id FROM finance_transactions t WHERE t.company_id = a.company_id AND t.id = a.entity_id)
				WHEN 'penalty' THEN (SELECT pn.driver_id FROM penalties pn WHERE pn.company_id = a.company_id AND pn.id = a.entity_id)
				WHEN 'finance_period' THEN (SELECT fp.driver_id FROM finance_periods fp WHERE fp.company_id = a.company_id AND fp.id = a.entity_id)
				WHEN 'transport_unit' THEN (SELECT tu.driver_id FROM transport_units tu WHERE tu.company_id = a.company_id AND tu.id = a.entity_id)
			END AS driver_id,
			CASE a.entity_type
				WHEN 'document' THEN a.entity_id
				WHEN 'document_file' THEN (SELECT f.document_id FROM document_files f WHERE f.company_id = a.company_id AND f.id = a.entity_id)
			END AS document_id,
			CASE a.entity_type
				WHEN 'finance_transaction' THEN (SELECT t.currency FROM finance_transactions t WHERE t.company_id = a.company_id AND t.id = a.entity_id)
				WHEN 'penalty' THEN (SELECT pn.currency FROM penalties pn WHERE pn.company_id = a.company_id AND pn.id = a.entity_id)
				WHEN 'finance_period' THEN (SELECT fp.currency FROM finance_periods fp WHERE fp.company_id = a.company_id AND fp.id = a.entity_id)
			END AS currency
		) r ON true
		LEFT JOIN drivers sd ON sd.company_id = a.company_id AND sd.id = r.driver_id
		LEFT JOIN driver_documents sdoc ON sdoc.company_id = a.company_id AND sdoc.id = r.document_id`

// List returns a page of the caller's company's audit rows, newest first,
// and the total. read fills the filter after the role check (403 before a
// bad query's 400).
func (s *Service) List(ctx context.Context, p auth.Principal, read func(*Filter) error) (paging.Page[Log], error) {
	f, err := readFilter(p, read)
	if err != nil {
		return paging.Page[Log]{}, err
	}
	args := f.args(p)
	rows, err := s.db.Query(ctx, `
		SELECT `+logColumns+`, pg.total
		FROM (
			SELECT a.id, count(*) OVER () AS total
			FROM audit_logs a
			WHERE `+filterSQL+`
			ORDER BY a.created_at DESC, a.id DESC
			LIMIT $9 OFFSET $10
		) pg
		JOIN audit_logs a ON a.id = pg.id AND a.company_id = $1
		`+subjectJoin+`
		ORDER BY a.created_at DESC, a.id DESC`,
		append(args, f.Page.Size, f.Page.Offset())...)
	if err != nil {
		return paging.Page[Log]{}, fmt.Errorf("list audit logs: %w", err)
	}
	total := 0
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, l *Log) error {
		return r.Scan(append(l.fields(), &total)...)
	})
	if err != nil {
		return paging.Page[Log]{}, fmt.Errorf("list audit logs: %w", err)
	}
	if len(out) == 0 && f.Page.Number > 1 {
		// count(*) OVER () is unknown past the last page; count separately.
		if err := s.db.QueryRow(ctx, `SELECT count(*) FROM audit_logs a WHERE `+filterSQL, args...).Scan(&total); err != nil {
			return paging.Page[Log]{}, fmt.Errorf("count audit logs: %w", err)
		}
	}
	return paging.New(out, total, f.Page), nil
}

// Each calls fn for every row of the caller's company's filtered log,
// newest first, read one by one from the database, so an export of any
// length is streamed. read fills the filter after the role check; an error
// from fn stops the reading and is returned.
func (s *Service) Each(ctx context.Context, p auth.Principal, read func(*Filter) error, fn func(Log) error) error {
	f, err := readFilter(p, read)
	if err != nil {
		return err
	}
	rows, err := s.db.Query(ctx, `
		SELECT `+logColumns+`
		FROM audit_logs a
		`+subjectJoin+`
		WHERE `+filterSQL+`
		ORDER BY a.created_at DESC, a.id DESC`, f.args(p)...)
	if err != nil {
		return fmt.Errorf("read audit logs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var l Log
		if err := rows.Scan(l.fields()...); err != nil {
			return fmt.Errorf("read audit logs: %w", err)
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read audit logs: %w", err)
	}
	return nil
}

// logColumns are the columns of a Log (Log.fields), over audit_logs a and
// subjectJoin.
const logColumns = `a.id, a.entity_type, a.entity_id, a.user_id, a.user_name, a.action, a.old_values, a.new_values, a.ip_address,
			a.user_agent, a.created_at,
			sd.id, coalesce(sd.first_name || ' ' || sd.last_name, ''), sd.deleted_at IS NOT NULL, sdoc.id, coalesce(sdoc.type, ''),
			coalesce(r.currency, '')`

// fields are the scan targets of logColumns.
func (l *Log) fields() []any {
	sub := &l.Subject
	return []any{&l.ID, &l.EntityType, &l.EntityID, &l.UserID, &l.User, &l.Action, &l.OldValues, &l.NewValues,
		&l.IPAddress, &l.UserAgent, &l.CreatedAt,
		&sub.DriverID, &sub.DriverName, &sub.DriverDeleted, &sub.DocumentID, &sub.DocumentType, &sub.Currency}
}

// readFilter checks the caller's role, then reads and checks the filter.
func readFilter(p auth.Principal, read func(*Filter) error) (Filter, error) {
	if err := readable(p); err != nil {
		return Filter{}, err
	}
	var f Filter
	if err := read(&f); err != nil {
		return Filter{}, err
	}
	for _, et := range f.EntityTypes {
		if !slices.Contains(EntityTypes, et) {
			return Filter{}, apperr.Invalid("entity_type", "msg.audit.entity_type")
		}
	}
	return f, nil
}

// args are the arguments $1–$8 of filterSQL.
func (f Filter) args(p auth.Principal) []any {
	return []any{p.CompanyID, nonNil(f.EntityTypes), nonNil(f.EntityIDs), nonNil(f.UserIDs), f.From, f.To, nonNil(f.DriverIDs), nonNil(f.Actions)}
}

// Person is someone who has changed something: a user of the company who
// appears in its audit log.
type Person struct {
	ID   uuid.UUID
	Name string
}

// People lists the company's users who have audit rows, by name, for the
// page's "who" filter.
func (s *Service) People(ctx context.Context, p auth.Principal) ([]Person, error) {
	if err := readable(p); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT u.id, coalesce(nullif(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email)
		FROM users u
		WHERE u.company_id = $1
			AND EXISTS (SELECT 1 FROM audit_logs a WHERE a.company_id = $1 AND a.user_id = u.id)
		ORDER BY 2, u.id`, p.CompanyID)
	if err != nil {
		return nil, fmt.Errorf("list audit people: %w", err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, pe *Person) error {
		return r.Scan(&pe.ID, &pe.Name)
	})
	if err != nil {
		return nil, fmt.Errorf("list audit people: %w", err)
	}
	return out, nil
}

// nonNil sends an empty list rather than NULL, so cardinality() is 0.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
