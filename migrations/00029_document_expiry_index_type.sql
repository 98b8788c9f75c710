-- The document_status filter of the driver list reads a range of the
-- company's documents by valid_until and keeps those whose type is not
-- capped by a validity chain nor retired (docs/query-plans.md). Since the
-- type joined the condition (migration 00023), the index of 00003 no
-- longer answered it alone: on a company of 20,000 drivers the planner
-- read the whole driver_documents table instead (280,000 rows, 10,000
-- pages, 56 of the list's 104 ms). Carrying the type too makes it an
-- index-only scan of the range again (16,000 entries, 3 ms).

-- +goose Up
DROP INDEX driver_documents_company_valid_until_idx;
CREATE INDEX driver_documents_company_valid_until_idx ON driver_documents (company_id, valid_until)
    INCLUDE (driver_id, current_file_id, type);

-- +goose Down
DROP INDEX driver_documents_company_valid_until_idx;
CREATE INDEX driver_documents_company_valid_until_idx ON driver_documents (company_id, valid_until)
    INCLUDE (driver_id, current_file_id);
