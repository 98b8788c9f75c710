-- Each version of a document keeps its own number and validity
-- (docs/drivers-and-documents.md, "Download and versions"): the document's
-- number, valid_from and valid_until as that version made them (for a
-- version waiting for review: as approving it would make them). The
-- document's row keeps the current version's; the versions list shows each.
--
-- Versions uploaded before this were recorded without them: the current
-- version takes the document's, a version waiting for review or rejected
-- the document's with the fields sent with it, the older ones stay null.

-- +goose Up
ALTER TABLE document_files
    ADD COLUMN number varchar(100),
    ADD COLUMN valid_from date,
    ADD COLUMN valid_until date,
    ADD CONSTRAINT document_files_validity_check CHECK (valid_until >= valid_from);

UPDATE document_files f
SET number = CASE WHEN f.review_change ? 'number' THEN f.review_change ->> 'number' ELSE dd.number END,
    valid_from = CASE WHEN f.review_change ? 'valid_from' THEN (f.review_change ->> 'valid_from')::date ELSE dd.valid_from END,
    valid_until = CASE WHEN f.review_change ? 'valid_until' THEN (f.review_change ->> 'valid_until')::date ELSE dd.valid_until END
FROM driver_documents dd
WHERE dd.company_id = f.company_id AND dd.id = f.document_id
    AND (f.is_current OR f.review_status <> 'approved')
    AND (CASE WHEN f.review_change ? 'valid_until' THEN (f.review_change ->> 'valid_until')::date ELSE dd.valid_until END)
        >= (CASE WHEN f.review_change ? 'valid_from' THEN (f.review_change ->> 'valid_from')::date ELSE dd.valid_from END)
        IS NOT FALSE;

-- +goose Down
ALTER TABLE document_files
    DROP CONSTRAINT document_files_validity_check,
    DROP COLUMN valid_until,
    DROP COLUMN valid_from,
    DROP COLUMN number;
