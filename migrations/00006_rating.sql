-- Rating support (docs/rating.md).
--
-- document_upload_timeliness needs, for every file uploaded in a month, the
-- valid_until the document had just before that upload ("the previous
-- valid_until"). driver_documents keeps only the current value, so a trigger
-- logs every change of valid_until, and every file row remembers the
-- database transaction that uploaded it. The value in force before an upload
-- is then the old value of the first change made by the upload's own
-- transaction or after it, or, when there is none, the current value. This
-- works whatever order the upload code uses (file row first or document
-- update first) and also when valid_until is corrected later by a separate
-- metadata update.
--
-- rating_runs marks a company's month as rated as a whole (written in the
-- same transaction as the snapshots), so the monthly job knows which months
-- are done without relying on the job queue's retention.

-- +goose Up

CREATE TABLE document_validity_changes (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    company_id      uuid NOT NULL REFERENCES companies (id),
    document_id     uuid NOT NULL,
    old_valid_until date,
    new_valid_until date,
    xact            xid8 NOT NULL DEFAULT pg_current_xact_id(),
    changed_at      timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, document_id) REFERENCES driver_documents (company_id, id)
);
CREATE INDEX document_validity_changes_document_idx ON document_validity_changes (document_id, id);

-- +goose StatementBegin
CREATE FUNCTION konvoj_log_validity_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO document_validity_changes (company_id, document_id, old_valid_until, new_valid_until)
    VALUES (NEW.company_id, NEW.id, OLD.valid_until, NEW.valid_until);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER driver_documents_log_validity_change
    AFTER UPDATE OF valid_until ON driver_documents
    FOR EACH ROW WHEN (OLD.valid_until IS DISTINCT FROM NEW.valid_until)
    EXECUTE FUNCTION konvoj_log_validity_change();

-- The transaction that inserted the file (filled by the default; xmin is not
-- usable because the next upload updates is_current).
ALTER TABLE document_files ADD COLUMN upload_xact xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE TABLE rating_runs (
    company_id    uuid NOT NULL REFERENCES companies (id),
    rating_period date NOT NULL CHECK (rating_period = date_trunc('month', rating_period)::date),
    drivers_rated integer NOT NULL CHECK (drivers_rated >= 0),
    completed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, rating_period)
);

-- +goose Down
DROP TABLE rating_runs;
ALTER TABLE document_files DROP COLUMN upload_xact;
DROP TRIGGER driver_documents_log_validity_change ON driver_documents;
DROP FUNCTION konvoj_log_validity_change();
DROP TABLE document_validity_changes;
