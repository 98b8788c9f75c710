-- The driver import (docs/import-export.md).
--
-- The columns of an import as they were matched, kept with the import: a
-- client polling a large import reads them from the row instead of reading
-- and parsing the stored file at every poll. Null for an import recorded
-- before: its file is matched again when read.
--
-- konvoj_analyze_drivers() refreshes the planner's statistics of drivers and
-- driver_documents inside an import's transaction, once its first new
-- drivers are written and again once their documents are. Every document record of a new
-- driver checks its foreign key to drivers (company_id, id), and the
-- document metadata is written by a join on the documents; while the
-- statistics know nothing of the company's new rows, the planner may pick
-- any index led by company_id for these and read all of the company's rows
-- for each one: an import of 20,000 drivers then reads billions of rows.
-- ANALYZE run in the transaction counts its own new rows. It runs as the
-- owner (the request role may not ANALYZE); a lock held elsewhere (another
-- ANALYZE of these tables, until that transaction ends) is not waited for:
-- the import goes on without it.

-- +goose Up
ALTER TABLE imports ADD COLUMN columns jsonb, ADD COLUMN unknown_columns jsonb;

-- +goose StatementBegin
CREATE FUNCTION konvoj_analyze_drivers() RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
SET lock_timeout = '200ms'
AS $$
BEGIN
    ANALYZE drivers, driver_documents;
    RETURN true;
EXCEPTION WHEN lock_not_available THEN
    RETURN false;
END
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION konvoj_analyze_drivers() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION konvoj_analyze_drivers() TO konvoj_app;

-- +goose Down
DROP FUNCTION konvoj_analyze_drivers();
ALTER TABLE imports DROP COLUMN unknown_columns, DROP COLUMN columns;
