-- Notifications that call people to act (docs/alerts.md, "Calls to act"):
-- a driver's upload waiting for review is recorded like a stage of its
-- version (stage requested) and told to the company's admins and HR
-- managers; a dispute filed (stage filed, to admins and HR managers) and
-- resolved (stage resolved, to the driver's user) is a notification of kind
-- penalty_dispute naming the penalty and its driver, without an alert row.

-- +goose Up
ALTER TABLE document_alerts DROP CONSTRAINT document_alerts_stage_check;
ALTER TABLE document_alerts ADD CONSTRAINT document_alerts_stage_check
    CHECK (stage IN ('lead', 'expiring_soon', 'expired', 'missing', 'reminder', 'approved', 'rejected', 'requested'));
ALTER TABLE notifications
    ADD COLUMN stage text CHECK (stage IN ('filed', 'resolved')),
    ADD COLUMN driver_id uuid,
    ADD COLUMN penalty_id uuid;
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review', 'webhook_disabled', 'penalty_dispute'));
ALTER TABLE notifications DROP CONSTRAINT notifications_subject_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_subject_check
    CHECK ((kind = 'webhook_disabled') = (webhook_id IS NOT NULL)
        AND (kind = 'penalty_dispute') = (penalty_id IS NOT NULL AND driver_id IS NOT NULL AND stage IS NOT NULL)
        AND (kind IN ('webhook_disabled', 'penalty_dispute')) = (alert_id IS NULL));

-- +goose Down
DELETE FROM notifications WHERE kind = 'penalty_dispute'
    OR alert_id IN (SELECT id FROM document_alerts WHERE stage = 'requested');
DELETE FROM document_alerts WHERE stage = 'requested';
ALTER TABLE notifications DROP CONSTRAINT notifications_subject_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_subject_check
    CHECK ((kind = 'webhook_disabled') = (alert_id IS NULL) AND (kind = 'webhook_disabled') = (webhook_id IS NOT NULL));
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review', 'webhook_disabled'));
ALTER TABLE notifications DROP COLUMN penalty_id, DROP COLUMN driver_id, DROP COLUMN stage;
ALTER TABLE document_alerts DROP CONSTRAINT document_alerts_stage_check;
ALTER TABLE document_alerts ADD CONSTRAINT document_alerts_stage_check
    CHECK (stage IN ('lead', 'expiring_soon', 'expired', 'missing', 'reminder', 'approved', 'rejected'));
