-- The daily e-mails repeat the calls to act (docs/alerts.md, "Calls to act"):
-- an upload waiting for review and a dispute filed to admins and HR
-- managers, a rejected upload and a dispute's outcome to the driver. Each
-- such notification is taken into one day's e-mail once: the scan that
-- takes it stamps digested_at in its transaction.

-- +goose Up
ALTER TABLE notifications ADD COLUMN digested_at timestamptz;
-- Those written before were told already, in the app.
UPDATE notifications SET digested_at = created_at WHERE kind IN ('document_review', 'penalty_dispute');
CREATE INDEX notifications_undigested_idx ON notifications (company_id)
    WHERE digested_at IS NULL AND kind IN ('document_review', 'penalty_dispute');

-- +goose Down
DROP INDEX notifications_undigested_idx;
ALTER TABLE notifications DROP COLUMN digested_at;
