-- +goose Up
-- A driver's next expiry (the earliest valid_until among its documents with
-- a current file) for the driver list's next_expiry field and sort: the
-- first entry of this index for the driver, read from the index alone.
CREATE INDEX driver_documents_next_expiry_idx ON driver_documents (driver_id, valid_until, type)
    INCLUDE (company_id, id)
    WHERE current_file_id IS NOT NULL AND valid_until IS NOT NULL;

-- +goose Down
DROP INDEX driver_documents_next_expiry_idx;
