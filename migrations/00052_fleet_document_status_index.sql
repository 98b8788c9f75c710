-- The vehicles' and trailers' lists filter by document status as ranges of
-- valid_until (docs/performance.md, "The vehicles list"): the index carries
-- what the filter returns and checks, so the filter reads the index alone.

-- +goose Up
DROP INDEX driver_documents_company_holder_idx;
CREATE INDEX driver_documents_company_holder_idx ON driver_documents (company_id, holder_type, valid_until)
    INCLUDE (vehicle_id, trailer_id, current_file_id) WHERE holder_type <> 'driver';

-- +goose Down
DROP INDEX driver_documents_company_holder_idx;
CREATE INDEX driver_documents_company_holder_idx ON driver_documents (company_id, holder_type, valid_until)
    WHERE holder_type <> 'driver';
