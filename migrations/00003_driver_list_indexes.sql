-- +goose Up
-- Indexes for the driver list (GET /api/v0/drivers), which counts the
-- filtered set on every offset page.
--
-- The sort indexes cover live drivers only: the default list then counts,
-- sorts and pages from the index alone (an index-only scan), without
-- visiting every driver row of the company to check deleted_at.
DROP INDEX drivers_company_internal_seq_idx;
DROP INDEX drivers_company_last_name_idx;
DROP INDEX drivers_company_hire_date_idx;
DROP INDEX drivers_company_created_at_idx;
CREATE INDEX drivers_company_internal_seq_idx ON drivers (company_id, internal_seq, id) WHERE deleted_at IS NULL;
CREATE INDEX drivers_company_last_name_idx ON drivers (company_id, last_name, id) WHERE deleted_at IS NULL;
CREATE INDEX drivers_company_hire_date_idx ON drivers (company_id, hire_date, id) WHERE deleted_at IS NULL;
CREATE INDEX drivers_company_created_at_idx ON drivers (company_id, created_at, id) WHERE deleted_at IS NULL;

-- The document_status filter and expiry scans read ranges of valid_until;
-- carrying driver_id and current_file_id lets them answer from the index.
DROP INDEX driver_documents_company_valid_until_idx;
CREATE INDEX driver_documents_company_valid_until_idx ON driver_documents (company_id, valid_until)
    INCLUDE (driver_id, current_file_id);

-- +goose Down
DROP INDEX driver_documents_company_valid_until_idx;
CREATE INDEX driver_documents_company_valid_until_idx ON driver_documents (company_id, valid_until);
DROP INDEX drivers_company_internal_seq_idx;
DROP INDEX drivers_company_last_name_idx;
DROP INDEX drivers_company_hire_date_idx;
DROP INDEX drivers_company_created_at_idx;
CREATE INDEX drivers_company_internal_seq_idx ON drivers (company_id, internal_seq, id);
CREATE INDEX drivers_company_last_name_idx ON drivers (company_id, last_name, id);
CREATE INDEX drivers_company_hire_date_idx ON drivers (company_id, hire_date, id);
CREATE INDEX drivers_company_created_at_idx ON drivers (company_id, created_at, id);
