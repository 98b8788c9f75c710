-- +goose Up
-- Rating a month looks, for each document of the drivers rated, for the
-- approved uploads of the month (document_upload_timeliness, docs/rating.md).
-- By (document_id, version) every version of every document was visited to
-- find the few of the month; by (document_id, uploaded_at) each lookup is a
-- range that is usually empty (2,000 drivers' 26,000 documents: 240 ms, then
-- 114 ms, docs/performance.md, "Rating a month").
CREATE INDEX document_files_document_uploaded_idx ON document_files (document_id, uploaded_at)
    WHERE review_status = 'approved';

-- +goose Down
DROP INDEX IF EXISTS document_files_document_uploaded_idx;
