-- +goose Up
-- The drivers list's document_status filter for every status, and the home
-- page's counts (docs/performance.md, "The document status filter"). Only
-- `expired` alone was answered from a stored day (driver_expiry, migration
-- 00037); every other status worked the validity chains out per request:
-- on 20,000 drivers, 60-120 ms a page.
--
-- A document's effective status on day t depends on t only through one
-- date: it is no_data when the document or a document its chain picks has
-- no file (a step picks its first alternative with a file, else its
-- first, which depends on the files only), and otherwise the status
-- konvoj_document_status gives the earliest valid_until among them (none:
-- valid), because that status only worsens as the date comes nearer. That
-- fact and that date are kept here, one row per document of a type that is
-- not retired, so that every status is an index range.
--
-- The same triggers keep driver_expiry, now worked out from these rows. A
-- refresh now also locks the drivers' rows here before it works them out:
-- two transactions writing documents of one driver at once (a permit and
-- the residence permit that caps it) each worked the driver out without
-- the other's uncommitted write, and whichever wrote last left rows that
-- missed the other's change. Now the second waits for the first and works
-- the driver out after it has committed. Writes of other drivers do not
-- wait.

-- konvoj_effective_until is, for each document of the driver whose type is
-- not in hidden: whether it and every document its chain picks have a file
-- (has_file; false: its effective status is no_data), and the earliest
-- valid_until among them (until; NULL when none has one, or when has_file
-- is false). Its effective status on day t is konvoj_document_status(
-- has_file, until, t), as konvoj_document_statuses gives it:
-- TestEffectiveUntilMatchesDocumentStatuses keeps the two in step.
-- +goose StatementBegin
CREATE FUNCTION konvoj_effective_until(company uuid, driver uuid, chains jsonb, hidden text[])
RETURNS TABLE (id uuid, type text, has_file boolean, until date)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH own AS MATERIALIZED (
        SELECT dd.id, dd.type, dd.current_file_id IS NOT NULL AS has_file, dd.valid_until
        FROM driver_documents dd
        WHERE dd.company_id = company AND dd.driver_id = driver AND dd.type <> ALL (hidden)
    )
    SELECT o.id, o.type, e.has_file, CASE WHEN e.has_file THEN least(o.valid_until, c.until) END
    FROM own o
    CROSS JOIN LATERAL (
        SELECT bool_and(p.has_file) AS all_files, min(p.valid_until) AS until
        FROM jsonb_array_elements(coalesce(chains -> o.type, '[]')) AS s(alts)
        CROSS JOIN LATERAL (
            SELECT x.has_file, x.valid_until
            FROM jsonb_array_elements_text(s.alts) WITH ORDINALITY AS a(type, pos)
            JOIN own x ON x.type = a.type
            ORDER BY NOT x.has_file, a.pos
            LIMIT 1
        ) p
    ) c
    CROSS JOIN LATERAL (SELECT o.has_file AND coalesce(c.all_files, true) AS has_file) e
$$;
-- +goose StatementEnd

-- One rule, one place: the first day with an effectively expired document
-- is the day after the earliest effective date of a document with files.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_expired_from(company uuid, driver uuid, chains jsonb, hidden text[])
RETURNS date LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT min(e.until) + 1 FROM konvoj_effective_until(company, driver, chains, hidden) e WHERE e.has_file
$$;
-- +goose StatementEnd

CREATE TABLE document_effective (
    document_id uuid PRIMARY KEY REFERENCES driver_documents (id) ON DELETE CASCADE,
    company_id  uuid NOT NULL REFERENCES companies (id),
    driver_id   uuid NOT NULL,
    type        text NOT NULL,
    has_file    boolean NOT NULL,
    until       date
);

-- Every status is a range of until (no_data and documents without expiry:
-- NULL), and the index carries what the filter returns and checks. A
-- driver's rows (the documents summary of a list row or a driver read) are
-- one leaf of the second.
CREATE INDEX document_effective_company_until_idx ON document_effective (company_id, until)
    INCLUDE (driver_id, type, has_file);
CREATE INDEX document_effective_driver_idx ON document_effective (driver_id)
    INCLUDE (company_id, type, has_file, until);

SELECT konvoj_enable_tenant_rls('document_effective');

-- konvoj_refresh_expiry works the given drivers' documents out again, then
-- their expired-from days from those rows. The company's facts row is
-- share-locked first, as before (a change of its chains locks it for
-- update: whichever comes second waits and then reads what the first
-- wrote). Then, unless the caller already excludes every other writer of
-- the company (a change of its chains, lock_drivers false), the drivers'
-- rows here are locked, in one order: a concurrent refresh of one of these
-- drivers waits for this transaction to end, and the statements below,
-- each with a new snapshot, see what an earlier one committed.
DROP FUNCTION konvoj_refresh_expiry(uuid, uuid[]);
-- +goose StatementBegin
CREATE FUNCTION konvoj_refresh_expiry(company uuid, drivers uuid[], lock_drivers boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    f company_document_facts;
BEGIN
    SELECT * INTO f FROM company_document_facts WHERE company_id = company FOR KEY SHARE;
    IF lock_drivers THEN
        PERFORM 1 FROM document_effective x
        WHERE x.company_id = company AND x.driver_id = ANY (drivers)
        ORDER BY x.document_id
        FOR NO KEY UPDATE;
    END IF;
    WITH computed AS (
        SELECT d.id AS driver_id, e.id, e.type, e.has_file, e.until
        FROM drivers d
        CROSS JOIN LATERAL konvoj_effective_until(company, d.id, f.chains, f.retired) e
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM document_effective x
        WHERE x.company_id = company AND x.driver_id = ANY (drivers)
            AND NOT EXISTS (SELECT 1 FROM computed k WHERE k.id = x.document_id)
    )
    INSERT INTO document_effective AS x (document_id, company_id, driver_id, type, has_file, until)
    SELECT k.id, company, k.driver_id, k.type, k.has_file, k.until FROM computed k
    ORDER BY k.id
    ON CONFLICT (document_id) DO UPDATE SET company_id = EXCLUDED.company_id, driver_id = EXCLUDED.driver_id,
        type = EXCLUDED.type, has_file = EXCLUDED.has_file, until = EXCLUDED.until
        WHERE (x.company_id, x.driver_id, x.type, x.has_file, x.until)
            IS DISTINCT FROM (EXCLUDED.company_id, EXCLUDED.driver_id, EXCLUDED.type, EXCLUDED.has_file, EXCLUDED.until);

    WITH computed AS (
        SELECT d.id, (SELECT min(x.until) + 1 FROM document_effective x
            WHERE x.driver_id = d.id AND x.company_id = company AND x.has_file) AS expired_from
        FROM drivers d
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM driver_expiry e USING computed k
        WHERE e.driver_id = k.id AND k.expired_from IS NULL
    )
    INSERT INTO driver_expiry AS e (driver_id, company_id, expired_from)
    SELECT k.id, company, k.expired_from FROM computed k
    WHERE k.expired_from IS NOT NULL
    ORDER BY k.id
    ON CONFLICT (driver_id) DO UPDATE SET expired_from = EXCLUDED.expired_from
        WHERE e.expired_from <> EXCLUDED.expired_from;
END
$$;
-- +goose StatementEnd

-- A change of the company's chains or retired types works out every
-- driver of the company. It holds the facts row for update, so no document
-- write of the company refreshes beside it: no driver's rows need locking
-- (locking every document's row would write to each one).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_chains_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM konvoj_refresh_expiry(NEW.company_id,
        ARRAY(SELECT DISTINCT dd.driver_id FROM driver_documents dd WHERE dd.company_id = NEW.company_id), false);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- The documents stored so far.
INSERT INTO document_effective (document_id, company_id, driver_id, type, has_file, until)
SELECT e.id, d.company_id, d.id, e.type, e.has_file, e.until
FROM drivers d
JOIN company_document_facts f ON f.company_id = d.company_id
CROSS JOIN LATERAL konvoj_effective_until(d.company_id, d.id, f.chains, f.retired) e;

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_chains_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM konvoj_refresh_expiry(NEW.company_id,
        ARRAY(SELECT DISTINCT dd.driver_id FROM driver_documents dd WHERE dd.company_id = NEW.company_id));
    RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP FUNCTION konvoj_refresh_expiry(uuid, uuid[], boolean);
-- +goose StatementBegin
CREATE FUNCTION konvoj_refresh_expiry(company uuid, drivers uuid[]) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    f company_document_facts;
BEGIN
    SELECT * INTO f FROM company_document_facts WHERE company_id = company FOR KEY SHARE;
    WITH computed AS (
        SELECT d.id, konvoj_expired_from(company, d.id, f.chains, f.retired) AS expired_from
        FROM drivers d
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM driver_expiry e USING computed k
        WHERE e.driver_id = k.id AND k.expired_from IS NULL
    )
    INSERT INTO driver_expiry AS e (driver_id, company_id, expired_from)
    SELECT k.id, company, k.expired_from FROM computed k
    WHERE k.expired_from IS NOT NULL
    ORDER BY k.id
    ON CONFLICT (driver_id) DO UPDATE SET expired_from = EXCLUDED.expired_from
        WHERE e.expired_from <> EXCLUDED.expired_from;
END
$$;
-- +goose StatementEnd
DROP TABLE document_effective;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_expired_from(company uuid, driver uuid, chains jsonb, hidden text[])
RETURNS date LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH own AS MATERIALIZED (
        SELECT dd.type, dd.current_file_id IS NOT NULL AS has_file, dd.valid_until
        FROM driver_documents dd
        WHERE dd.company_id = company AND dd.driver_id = driver AND dd.type <> ALL (hidden)
    )
    SELECT min(least(o.valid_until, c.until)) + 1
    FROM own o
    CROSS JOIN LATERAL (
        SELECT bool_and(p.has_file) AS all_files, min(p.valid_until) AS until
        FROM jsonb_array_elements(coalesce(chains -> o.type, '[]')) AS s(alts)
        CROSS JOIN LATERAL (
            SELECT x.has_file, x.valid_until
            FROM jsonb_array_elements_text(s.alts) WITH ORDINALITY AS a(type, pos)
            JOIN own x ON x.type = a.type
            ORDER BY NOT x.has_file, a.pos
            LIMIT 1
        ) p
    ) c
    WHERE o.has_file AND coalesce(c.all_files, true)
$$;
-- +goose StatementEnd
DROP FUNCTION konvoj_effective_until(uuid, uuid, jsonb, text[]);
