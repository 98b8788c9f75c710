-- Review of drivers' uploads (docs/drivers-and-documents.md, "Review of
-- drivers' uploads"): with the type's rule requires_review on, a driver's
-- own upload is a version waiting for HR (review_status pending). It is not
-- the document's current file and its metadata (review_change, the fields
-- sent with the file, in the form of PUT /documents/{id}) are not applied
-- until HR approves it. Every earlier version counts as approved.

-- +goose Up
ALTER TABLE document_files
    ADD COLUMN review_status text NOT NULL DEFAULT 'approved'
        CHECK (review_status IN ('approved', 'pending', 'rejected')),
    ADD COLUMN review_reason text CHECK (char_length(review_reason) <= 1000),
    ADD COLUMN reviewed_by uuid REFERENCES users (id),
    ADD COLUMN reviewed_at timestamptz,
    ADD COLUMN review_change jsonb CHECK (jsonb_typeof(review_change) = 'object'),
    -- A pending version is never the current one.
    ADD CONSTRAINT document_files_pending_not_current CHECK (review_status = 'approved' OR NOT is_current);

-- The review queue: a company's pending versions, oldest first.
CREATE INDEX document_files_pending_idx ON document_files (company_id, uploaded_at, id)
    WHERE review_status = 'pending';

-- The outcome of a review is told to the driver like an alert: a
-- document_alerts row (stage approved or rejected, file_id the version)
-- with an in-app notification of kind document_review.
ALTER TABLE document_alerts DROP CONSTRAINT document_alerts_stage_check;
ALTER TABLE document_alerts ADD CONSTRAINT document_alerts_stage_check
    CHECK (stage IN ('lead', 'expiring_soon', 'expired', 'missing', 'reminder', 'approved', 'rejected'));
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review'));

-- +goose Down
DELETE FROM notifications WHERE kind = 'document_review';
DELETE FROM document_alerts WHERE stage IN ('approved', 'rejected');
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder'));
ALTER TABLE document_alerts DROP CONSTRAINT document_alerts_stage_check;
ALTER TABLE document_alerts ADD CONSTRAINT document_alerts_stage_check
    CHECK (stage IN ('lead', 'expiring_soon', 'expired', 'missing', 'reminder'));
DROP INDEX document_files_pending_idx;
ALTER TABLE document_files
    DROP CONSTRAINT document_files_pending_not_current,
    DROP COLUMN review_change,
    DROP COLUMN reviewed_at,
    DROP COLUMN reviewed_by,
    DROP COLUMN review_reason,
    DROP COLUMN review_status;
