package alerts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Notification is an in-app notification as the API shows it; title and
// body are in the caller's language.
type Notification struct {
	ID       uuid.UUID  `json:"id"`
	Kind     string     `json:"kind"`
	Stage    string     `json:"stage"`
	DriverID *uuid.UUID `json:"driver_id"`
	// HolderType and HolderID name whose record the notification is about:
	// a driver's (HolderID is then DriverID), a vehicle's or a trailer's
	// (docs/fleet.md); both null for a notification about no holder.
	HolderType   *string    `json:"holder_type"`
	HolderID     *uuid.UUID `json:"holder_id"`
	DocumentID   *uuid.UUID `json:"document_id"`
	DocumentType *string    `json:"document_type"`
	// PenaltyID is the disputed penalty of a penalty_dispute notification.
	PenaltyID *uuid.UUID `json:"penalty_id"`
	// UnitID is the transport unit of a transport_unit notification
	// (docs/dispatch.md); the key is absent on the other kinds.
	UnitID    *uuid.UUID `json:"unit_id,omitempty"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
	ReadAt    *time.Time `json:"read_at"`
	CreatedAt time.Time  `json:"created_at"`
}

// disputed is what a penalty_dispute notification says of its penalty
// (all nil when the penalty is gone).
type disputed struct {
	Type, Status, Reason, Resolution *string
	IncidentDate                     *civil.Date
}

// texts are the notification's title and body in lang: the driver, the
// penalty in words and its date, and the dispute's reason (filed) or the
// outcome and resolution (resolved).
func (d disputed) texts(lang i18n.Lang, stage, driver string) (string, string) {
	kind, date := "", ""
	if d.Type != nil {
		kind = lang.T("penalty.type." + *d.Type)
	}
	if d.IncidentDate != nil {
		date = lang.Date(*d.IncidentDate)
	}
	deref := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	if stage == StageFiled {
		return lang.T("notify.dispute.filed.title", "driver", driver, "type", kind, "date", date),
			lang.T("notify.dispute.filed.body", "reason", deref(d.Reason))
	}
	state := ""
	if d.Status != nil {
		state = lang.T("state.penalty." + *d.Status)
	}
	return lang.T("notify.dispute.resolved.title", "driver", driver, "type", kind, "date", date),
		lang.T("notify.dispute.resolved.body", "state", state, "resolution", deref(d.Resolution))
}

// Settings are a user's e-mail choices: every kind, true when e-mail is on.
type Settings struct {
	Email map[string]bool `json:"email"`
}

// SettingsUpdate is the body of PUT /me/notification-settings: the kinds
// it changes.
type SettingsUpdate struct {
	Email map[string]json.RawMessage `json:"email"`
}

// Service serves a user's own notifications and settings. Every role may
// use it (auth.NotificationsOwn), for its own user only.
type Service struct {
	db *pgxpool.Pool
}

// NewService returns the notifications service on the request pool.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db} }

// ListFilter narrows and pages the caller's notifications.
type ListFilter struct {
	Unread *bool
	Page   paging.Request
}

// List returns the caller's notifications, newest first, and the total.
func (s *Service) List(ctx context.Context, p auth.Principal, f ListFilter) (paging.Page[Notification], error) {
	if err := mine(p); err != nil {
		return paging.Page[Notification]{}, err
	}
	lang := i18n.From(ctx)
	types, err := documents.LoadTypeNames(ctx, s.db, p.CompanyID)
	if err != nil {
		return paging.Page[Notification]{}, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT n.id, n.kind, coalesce(a.stage, n.stage, 'disabled'), coalesce(a.driver_id, n.driver_id),
			CASE WHEN a.vehicle_id IS NOT NULL THEN 'vehicle' WHEN a.trailer_id IS NOT NULL THEN 'trailer'
				WHEN coalesce(a.driver_id, n.driver_id) IS NOT NULL THEN 'driver' END,
			coalesce(a.vehicle_id, a.trailer_id, a.driver_id, n.driver_id), a.document_id, a.document_type, a.valid_until,
			coalesce(nullif(concat_ws(' ', d.first_name, d.last_name), ''), v.plate_number, t.plate_number, ''), n.read_at, n.created_at, f.review_reason, w.url, n.penalty_id,
			pe.penalty_type, pe.incident_date, pe.status, pe.dispute_reason, pe.resolution, n.unit_id, tv.internal_number, count(*) OVER ()
		FROM notifications n
		LEFT JOIN document_alerts a ON a.id = n.alert_id AND a.company_id = n.company_id
		LEFT JOIN drivers d ON d.id = coalesce(a.driver_id, n.driver_id) AND d.company_id = n.company_id
		-- A vehicle's or a trailer's document (docs/fleet.md).
		LEFT JOIN vehicles v ON v.id = a.vehicle_id AND v.company_id = n.company_id
		LEFT JOIN trailers t ON t.id = a.trailer_id AND t.company_id = n.company_id
		LEFT JOIN document_files f ON f.id = a.file_id AND f.company_id = a.company_id AND a.stage = 'rejected'
		-- A webhook endpoint Konvoj disabled (docs/webhooks.md); one deleted since still shows.
		LEFT JOIN webhook_endpoints w ON w.id = n.webhook_id AND w.company_id = n.company_id
		-- A disputed penalty (docs/alerts.md, "Calls to act"); one deleted since still shows.
		LEFT JOIN penalties pe ON pe.id = n.penalty_id AND pe.company_id = n.company_id
		-- A transport unit whose readiness changed (docs/dispatch.md), named by its vehicle.
		LEFT JOIN transport_units tu ON tu.id = n.unit_id AND tu.company_id = n.company_id
		LEFT JOIN vehicles tv ON tv.id = tu.vehicle_id AND tv.company_id = n.company_id
		WHERE n.company_id = $1 AND n.user_id = $2 AND ($3::boolean IS NULL OR (n.read_at IS NULL) = $3)
			AND (n.alert_id IS NULL OR d.id IS NOT NULL OR v.deleted_at IS NULL AND v.id IS NOT NULL
				OR t.deleted_at IS NULL AND t.id IS NOT NULL)
		ORDER BY n.created_at DESC, n.id DESC
		LIMIT $4 OFFSET $5`, p.CompanyID, p.UserID, f.Unread, f.Page.Size, f.Page.Offset())
	if err != nil {
		return paging.Page[Notification]{}, fmt.Errorf("list notifications: %w", err)
	}
	total := 0
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, n *Notification) error {
		var until *civil.Date
		var driver string
		var reason, hookURL *string
		var pen disputed
		var vehicle *string
		if err := row.Scan(&n.ID, &n.Kind, &n.Stage, &n.DriverID, &n.HolderType, &n.HolderID, &n.DocumentID, &n.DocumentType, &until, &driver, &n.ReadAt, &n.CreatedAt, &reason, &hookURL,
			&n.PenaltyID, &pen.Type, &pen.IncidentDate, &pen.Status, &pen.Reason, &pen.Resolution, &n.UnitID, &vehicle, &total); err != nil {
			return err
		}
		if n.Kind == KindUnit {
			n.Title, n.Body = unitTexts(lang, n.Stage, driver, vehicle)
			return nil
		}
		if n.Kind == KindDispute {
			n.Title, n.Body = pen.texts(lang, n.Stage, driver)
			return nil
		}
		if n.Kind == KindWebhookDisabled {
			u := ""
			if hookURL != nil {
				u = *hookURL
			}
			n.Title = lang.T("notify.webhook_disabled.title", "url", u)
			n.Body = lang.T("notify.webhook_disabled.body")
			return nil
		}
		n.Title = lang.T("notify.title", "driver", driver, "type", types.Name(lang, *n.DocumentType), "stage", lang.T("alert.stage."+n.Stage))
		switch {
		case n.Stage == StageRejected:
			r := ""
			if reason != nil {
				r = *reason
			}
			n.Body = lang.T("notify.body.rejected", "reason", r)
		case n.Stage == StageApproved:
			n.Body = lang.T("notify.body.approved")
		case n.Stage == StageRequested:
			n.Body = lang.T("notify.body.requested")
		case until != nil:
			n.Body = lang.T("notify.body.until", "date", lang.Date(*until))
		default:
			n.Body = lang.T("notify.body.missing")
		}
		return nil
	})
	if err != nil {
		return paging.Page[Notification]{}, fmt.Errorf("list notifications: %w", err)
	}
	if len(out) == 0 && f.Page.Number > 1 { // a page past the end still reports the total
		if err := s.db.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE company_id = $1 AND user_id = $2
			AND ($3::boolean IS NULL OR (read_at IS NULL) = $3)`, p.CompanyID, p.UserID, f.Unread).Scan(&total); err != nil {
			return paging.Page[Notification]{}, fmt.Errorf("count notifications: %w", err)
		}
	}
	return paging.New(out, total, f.Page), nil
}

// Unread counts the caller's unread notifications (the bell).
func (s *Service) Unread(ctx context.Context, p auth.Principal) (int, error) {
	if err := mine(p); err != nil {
		return 0, err
	}
	var n int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM notifications WHERE company_id = $1 AND user_id = $2 AND read_at IS NULL`,
		p.CompanyID, p.UserID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count unread notifications: %w", err)
	}
	return n, nil
}

// MarkRead marks one of the caller's notifications read (again: no
// change). Another user's notification is 404, another company's 403.
func (s *Service) MarkRead(ctx context.Context, p auth.Principal, id uuid.UUID) error {
	if _, err := loadNotification(ctx, s.db, p, id); err != nil {
		return err
	}
	if _, err := s.db.Exec(ctx, `UPDATE notifications SET read_at = now() WHERE id = $1 AND company_id = $2 AND read_at IS NULL`, id, p.CompanyID); err != nil {
		return fmt.Errorf("mark notification %s read: %w", id, err)
	}
	return nil
}

// MarkAllRead marks every unread notification of the caller read and
// returns how many it marked.
func (s *Service) MarkAllRead(ctx context.Context, p auth.Principal) (int, error) {
	if err := mine(p); err != nil {
		return 0, err
	}
	tag, err := s.db.Exec(ctx, `UPDATE notifications SET read_at = now() WHERE company_id = $1 AND user_id = $2 AND read_at IS NULL`,
		p.CompanyID, p.UserID)
	if err != nil {
		return 0, fmt.Errorf("mark notifications read: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// Settings returns the caller's e-mail choices (every kind; on unless
// turned off).
func (s *Service) Settings(ctx context.Context, p auth.Principal) (Settings, error) {
	if err := mine(p); err != nil {
		return Settings{}, err
	}
	return loadSettings(ctx, s.db, p)
}

func loadSettings(ctx context.Context, db postgres.DBTX, p auth.Principal) (Settings, error) {
	var raw []byte
	err := db.QueryRow(ctx, `SELECT email FROM notification_settings WHERE user_id = $1 AND company_id = $2`, p.UserID, p.CompanyID).Scan(&raw)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Settings{}, fmt.Errorf("load notification settings: %w", err)
	}
	off := optOuts(raw)
	out := Settings{Email: map[string]bool{}}
	for _, k := range Kinds {
		out.Email[k] = !off[k]
	}
	return out, nil
}

// UpdateSettings changes the caller's e-mail choices: email maps a kind
// (document_alert, document_reminder) to true (e-mail on) or false (off);
// an unknown kind or a value that is not a boolean is 422 (email.<kind>).
func (s *Service) UpdateSettings(ctx context.Context, p auth.Principal, u SettingsUpdate) (Settings, error) {
	if err := mine(p); err != nil {
		return Settings{}, err
	}
	var v apperr.Validation
	if u.Email == nil {
		v.Add("email", "msg.notifications.email_required")
		return Settings{}, v.Err()
	}
	var out Settings
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := loadSettings(ctx, tx, p)
		if err != nil {
			return err
		}
		for k, raw := range u.Email {
			var on bool
			switch {
			case !slices.Contains(Kinds, k):
				v.Add("email."+k, "msg.notifications.kind", "allowed", Kinds)
			case absentJSON(raw) || json.Unmarshal(raw, &on) != nil:
				v.Add("email."+k, "msg.notifications.boolean")
			default:
				cur.Email[k] = on
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		b, err := json.Marshal(cur.Email)
		if err != nil {
			return fmt.Errorf("encode notification settings: %w", err)
		}
		if _, err := tx.Exec(ctx, `
			INSERT INTO notification_settings (user_id, company_id, email) VALUES ($1, $2, $3)
			ON CONFLICT (user_id) DO UPDATE SET email = EXCLUDED.email, updated_at = now()`, p.UserID, p.CompanyID, b); err != nil {
			return fmt.Errorf("store notification settings: %w", err)
		}
		out = cur
		return nil
	})
	return out, err
}

func absentJSON(raw json.RawMessage) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// KindUnit is the notification of a transport unit that stopped or
// started being ready (docs/dispatch.md), to dispatchers and admins; it
// has no e-mail (the dispatchers' digest lists the units about to stop).
const KindUnit = "transport_unit"

// unitTexts are a transport unit notification's title and body: the
// driver and the vehicle's internal number, and what the stage means.
func unitTexts(lang i18n.Lang, stage, driver string, vehicle *string) (string, string) {
	v := ""
	if vehicle != nil {
		v = *vehicle
	}
	if stage == "ready" {
		return lang.T("notify.unit.ready.title", "driver", driver, "vehicle", v), lang.T("notify.unit.ready.body")
	}
	return lang.T("notify.unit.not_ready.title", "driver", driver, "vehicle", v), lang.T("notify.unit.not_ready.body")
}
