-- The change feed of the lists (docs/change-feed.md) and the idempotency keys
-- of the API's POST requests.
--
-- Change feed: drivers, driver_documents, finance_transactions and penalties
-- carry updated_at = the writing transaction's start (now()), always: the
-- trigger overrides any value a statement writes, because the feed's rule
-- (konvoj_feed_horizon) relies on a row never being stamped earlier than
-- the start of the transaction that wrote it. A change of a document's
-- files (an upload, a review) touches the document. Indexes on
-- (company_id[, driver_id], updated_at, id) serve the feed's keyset order.
--
-- Idempotency keys: the first response to a POST with an Idempotency-Key,
-- per company and key, kept 24 hours (purged by a River job).

-- +goose Up

-- +goose StatementBegin
CREATE FUNCTION konvoj_feed_stamp() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    NEW.updated_at := now();
    RETURN NEW;
END
$$;
-- +goose StatementEnd

DROP TRIGGER drivers_touch_updated_at ON drivers;
DROP TRIGGER driver_documents_touch_updated_at ON driver_documents;
DROP TRIGGER finance_transactions_touch_updated_at ON finance_transactions;
DROP TRIGGER penalties_touch_updated_at ON penalties;
CREATE TRIGGER drivers_feed_stamp BEFORE INSERT OR UPDATE ON drivers
    FOR EACH ROW EXECUTE FUNCTION konvoj_feed_stamp();
CREATE TRIGGER driver_documents_feed_stamp BEFORE INSERT OR UPDATE ON driver_documents
    FOR EACH ROW EXECUTE FUNCTION konvoj_feed_stamp();
CREATE TRIGGER finance_transactions_feed_stamp BEFORE INSERT OR UPDATE ON finance_transactions
    FOR EACH ROW EXECUTE FUNCTION konvoj_feed_stamp();
CREATE TRIGGER penalties_feed_stamp BEFORE INSERT OR UPDATE ON penalties
    FOR EACH ROW EXECUTE FUNCTION konvoj_feed_stamp();

-- A file version added or changed (upload, review) changes the document as
-- the API shows it (its files and status), so it moves the document's
-- updated_at. The writers lock the document row before its files, so this
-- takes no lock they do not already hold.
-- +goose StatementBegin
CREATE FUNCTION konvoj_touch_document_of_file() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    UPDATE driver_documents SET updated_at = now()
    WHERE id = NEW.document_id AND company_id = NEW.company_id AND updated_at IS DISTINCT FROM now();
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER document_files_touch_document AFTER INSERT OR UPDATE ON document_files
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_document_of_file();

-- The feed's order: updated_at, then id.
CREATE INDEX drivers_company_updated_at_idx ON drivers (company_id, updated_at, id);
CREATE INDEX driver_documents_feed_idx ON driver_documents (company_id, driver_id, updated_at, id);
CREATE INDEX finance_transactions_feed_idx ON finance_transactions (company_id, driver_id, updated_at, id);
CREATE INDEX penalties_feed_idx ON penalties (company_id, driver_id, updated_at, id);

-- The feed's horizon: the start of the oldest transaction still running in
-- this database, less a second (docs/change-feed.md). Every row a running or
-- future transaction writes is stamped at or after it, so a feed that
-- returns only rows stamped before it never has a row appear later behind a
-- position it already returned. Read before the feed's query, in its own
-- statement, so the query's snapshot holds every transaction that had
-- ended by then. SECURITY DEFINER: the request role may not see other
-- sessions' transaction starts; the owner sees those of its own user, which
-- every Konvoj connection logs in as.
-- +goose StatementBegin
CREATE FUNCTION konvoj_feed_horizon() RETURNS timestamptz
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog
AS $$
    SELECT least(now(), min(a.xact_start)) - interval '1 second'
    FROM pg_stat_activity a
    WHERE a.datname = current_database() AND a.backend_type = 'client backend'
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION konvoj_feed_horizon() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION konvoj_feed_horizon() TO konvoj_app;

CREATE TABLE idempotency_keys (
    company_id    uuid NOT NULL REFERENCES companies (id),
    key           text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    user_id       uuid,
    method        text NOT NULL,
    path          text NOT NULL,
    -- SHA-256 of the request body (lower-case hex); null while the first
    -- request runs (the body is hashed as the handler reads it).
    request_hash  char(64),
    -- The stored response; status null while the first request runs.
    status        integer,
    content_type  text,
    response_body bytea,
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    PRIMARY KEY (company_id, key)
);
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
SELECT konvoj_enable_tenant_rls('idempotency_keys');

-- +goose Down
DROP TABLE idempotency_keys;
DROP FUNCTION konvoj_feed_horizon();
DROP INDEX penalties_feed_idx;
DROP INDEX finance_transactions_feed_idx;
DROP INDEX driver_documents_feed_idx;
DROP INDEX drivers_company_updated_at_idx;
DROP TRIGGER document_files_touch_document ON document_files;
DROP FUNCTION konvoj_touch_document_of_file();
DROP TRIGGER penalties_feed_stamp ON penalties;
DROP TRIGGER finance_transactions_feed_stamp ON finance_transactions;
DROP TRIGGER driver_documents_feed_stamp ON driver_documents;
DROP TRIGGER drivers_feed_stamp ON drivers;
DROP FUNCTION konvoj_feed_stamp();
CREATE TRIGGER drivers_touch_updated_at BEFORE UPDATE ON drivers
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER driver_documents_touch_updated_at BEFORE UPDATE ON driver_documents
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER finance_transactions_touch_updated_at BEFORE UPDATE ON finance_transactions
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER penalties_touch_updated_at BEFORE UPDATE ON penalties
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
