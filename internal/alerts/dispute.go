package alerts

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/finance"
)

// KindDispute is the notification kind of a penalty's dispute: filed (to
// the company's admins and HR managers) and resolved (to the driver).
const KindDispute = "penalty_dispute"

// The stages of a dispute's notifications.
const (
	StageFiled    = finance.DisputeFiled
	StageResolved = finance.DisputeResolved
)

// DisputeNotifier returns the finance service's notifier: it writes the
// in-app notifications of a filed or resolved dispute on the dispute's
// transaction (docs/alerts.md, "Calls to act").
func DisputeNotifier() finance.DisputeNotifier {
	return notifyDispute
}

// notifyDispute gives every active admin and HR manager of the company a
// notification of a filed dispute, and the driver's user (when the driver
// has signed in: an active driver user with the driver's e-mail, the
// first one as for alerts) one of the resolution, in one statement. The
// title and body are written when the notification is read, in the
// reader's language.
func notifyDispute(ctx context.Context, tx pgx.Tx, d finance.Disputed) error {
	if _, err := tx.Exec(ctx, `
		INSERT INTO notifications (company_id, user_id, kind, stage, driver_id, penalty_id)
		SELECT $1::uuid, u.id, $4::text, $5::text, $2::uuid, $3::uuid FROM users u
		WHERE $5::text = $6::text AND u.company_id = $1 AND u.is_active AND u.role IN ('admin', 'hr_manager')
		UNION ALL
		(SELECT $1, u.id, $4, $5, $2, $3 FROM drivers dr
			JOIN users u ON u.company_id = dr.company_id AND u.role = 'driver' AND u.is_active AND lower(u.email) = lower(dr.email)
			WHERE $5::text = $7::text AND dr.company_id = $1 AND dr.id = $2
			ORDER BY u.created_at, u.id LIMIT 1)`,
		d.CompanyID, d.DriverID, d.PenaltyID, KindDispute, d.Stage, StageFiled, StageResolved); err != nil {
		return fmt.Errorf("write %s dispute notifications: %w", d.Stage, err)
	}
	return nil
}
