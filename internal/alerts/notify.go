package alerts

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
)

// recipient is a person the scan tells: a user (in-app notifications) and,
// with an address, e-mail.
type recipient struct {
	UserID *uuid.UUID
	// Role is a staff recipient's: admins get every alert, HR managers
	// drivers', dispatchers vehicles' and trailers' (docs/alerts.md).
	Role     string
	Email    string
	Language i18n.Lang
	// OptOut holds the kinds the user turned e-mail off for.
	OptOut map[string]bool
}

// wantsEmail reports whether the recipient gets e-mail about alerts of
// this kind.
func (r recipient) wantsEmail(kind string) bool { return r.Email != "" && !r.OptOut[kind] }

// notify writes the notifications of the new alerts (every admin gets all
// of them, every HR manager those of drivers' documents, every dispatcher
// those of vehicles' and trailers', a driver's user its own) and the
// e-mails: one digest per admin, HR manager and dispatcher with something
// to say, one e-mail per driver with an address, each with the
// recipient's calls to act since the previous scan.
func (s *Scanner) notify(ctx context.Context, tx pgx.Tx, co company, date civil.Date, alerts []Alert, calls []Call) ([]Email, error) {
	staff, err := staffRecipients(ctx, tx, co)
	if err != nil {
		return nil, err
	}
	byDriver := map[uuid.UUID][]Alert{}
	callsByDriver := map[uuid.UUID][]Call{}
	var driverIDs []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, a := range alerts {
		if a.DriverID == uuid.Nil {
			continue // a vehicle's or a trailer's: staff only
		}
		if !seen[a.DriverID] {
			seen[a.DriverID] = true
			driverIDs = append(driverIDs, a.DriverID)
		}
		byDriver[a.DriverID] = append(byDriver[a.DriverID], a)
	}
	for _, c := range calls {
		if !c.toDriver() {
			continue
		}
		if !seen[c.DriverID] {
			seen[c.DriverID] = true
			driverIDs = append(driverIDs, c.DriverID)
		}
		callsByDriver[c.DriverID] = append(callsByDriver[c.DriverID], c)
	}
	drivers, err := driverRecipients(ctx, tx, co, driverIDs)
	if err != nil {
		return nil, err
	}

	var users, alertIDs []uuid.UUID
	var kinds []string
	add := func(user *uuid.UUID, list []Alert) {
		if user == nil {
			return
		}
		for _, a := range list {
			users, alertIDs, kinds = append(users, *user), append(alertIDs, a.ID), append(kinds, KindOf(a.Stage))
		}
	}
	for _, r := range staff {
		add(r.UserID, r.alertsOf(alerts))
	}
	for _, id := range driverIDs {
		add(drivers[id].UserID, byDriver[id])
	}
	if len(users) > 0 {
		if _, err := tx.Exec(ctx, `
			INSERT INTO notifications (company_id, user_id, alert_id, kind)
			SELECT $1, x.u, x.a, x.k FROM unnest($2::uuid[], $3::uuid[], $4::text[]) AS x(u, a, k)
			ON CONFLICT DO NOTHING`, co.ID, users, alertIDs, kinds); err != nil {
			return nil, fmt.Errorf("write notifications: %w", err)
		}
	}

	var mails []Email
	for _, r := range staff {
		list, acts := forEmail(r, r.alertsOf(alerts)), callsOf(r, calls)
		if len(list) > 0 || len(acts) > 0 {
			mails = append(mails, digestMail(s.BaseURL, co, date, r, list, acts))
		}
	}
	for _, id := range driverIDs {
		r := drivers[id]
		list, acts := forEmail(r, byDriver[id]), callsOf(r, callsByDriver[id])
		if len(list) > 0 || len(acts) > 0 {
			mails = append(mails, driverMail(s.BaseURL, co, r, list, acts))
		}
	}
	if err := writeOutbox(ctx, tx, co.ID, mails); err != nil {
		return nil, err
	}
	return mails, nil
}

// alertsOf keeps the alerts a staff recipient gets: an admin every one,
// an HR manager drivers', a dispatcher vehicles' and trailers'.
func (r recipient) alertsOf(alerts []Alert) []Alert {
	if r.Role == "admin" {
		return alerts
	}
	var out []Alert
	for _, a := range alerts {
		if (a.HolderType == "driver") == (r.Role == "hr_manager") {
			out = append(out, a)
		}
	}
	return out
}

// forEmail keeps the alerts the recipient wants by e-mail.
func forEmail(r recipient, alerts []Alert) []Alert {
	var out []Alert
	for _, a := range alerts {
		if r.wantsEmail(KindOf(a.Stage)) {
			out = append(out, a)
		}
	}
	return out
}

// optOuts reads a user's e-mail settings (kind -> false is an opt-out).
func optOuts(raw []byte) map[string]bool {
	var m map[string]bool
	_ = json.Unmarshal(raw, &m)
	out := map[string]bool{}
	for k, on := range m {
		if !on {
			out[k] = true
		}
	}
	return out
}

// staffRecipients are the company's active admins, HR managers and
// dispatchers.
func staffRecipients(ctx context.Context, tx pgx.Tx, co company) ([]recipient, error) {
	rows, err := tx.Query(ctx, `
		SELECT u.id, u.role, u.email, coalesce(u.preferred_language, ''), coalesce(ns.email, '{}')
		FROM users u LEFT JOIN notification_settings ns ON ns.user_id = u.id AND ns.company_id = u.company_id
		WHERE u.company_id = $1 AND u.is_active AND u.role IN ('admin', 'hr_manager', 'dispatcher')
		ORDER BY lower(u.email), u.id`, co.ID)
	if err != nil {
		return nil, fmt.Errorf("alert recipients: %w", err)
	}
	return postgres.AppendRows(nil, rows, func(row pgx.Row, r *recipient) error {
		var id uuid.UUID
		var lang string
		var settings []byte
		err := row.Scan(&id, &r.Role, &r.Email, &lang, &settings)
		r.UserID, r.Language, r.OptOut = &id, langOr(lang, co.Language), optOuts(settings)
		r.Email = strings.TrimSpace(r.Email)
		return err
	})
}

// driverRecipients are the drivers with alerts: the driver record's
// address and language (drivers.language, else its user's, else the
// company's), and the driver's user (by the same address) when the driver
// has signed in, for in-app notifications and the settings.
func driverRecipients(ctx context.Context, tx pgx.Tx, co company, ids []uuid.UUID) (map[uuid.UUID]recipient, error) {
	rows, err := tx.Query(ctx, `
		SELECT d.id, coalesce(d.email, ''), u.id, coalesce(d.language, u.preferred_language, ''), coalesce(ns.email, '{}')
		FROM drivers d
		LEFT JOIN LATERAL (
			SELECT x.id, x.preferred_language FROM users x
			WHERE x.company_id = d.company_id AND x.role = 'driver' AND x.is_active AND lower(x.email) = lower(d.email)
			ORDER BY x.created_at, x.id LIMIT 1
		) u ON true
		LEFT JOIN notification_settings ns ON ns.user_id = u.id AND ns.company_id = d.company_id
		WHERE d.company_id = $1 AND d.id = ANY ($2)`, co.ID, ids)
	if err != nil {
		return nil, fmt.Errorf("alert drivers: %w", err)
	}
	defer rows.Close()
	out := map[uuid.UUID]recipient{}
	for rows.Next() {
		var id uuid.UUID
		var r recipient
		var lang string
		var settings []byte
		if err := rows.Scan(&id, &r.Email, &r.UserID, &lang, &settings); err != nil {
			return nil, fmt.Errorf("alert drivers: %w", err)
		}
		r.Email, r.Language, r.OptOut = strings.TrimSpace(r.Email), langOr(lang, co.Language), optOuts(settings)
		out[id] = r
	}
	return out, rows.Err()
}
