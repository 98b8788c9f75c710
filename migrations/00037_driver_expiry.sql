-- +goose Up
-- "Who has an expired document?" is the drivers list's document_status=expired
-- (docs/performance.md, "The expired-documents filter"). Worked out from the
-- documents on every request, it read every expired document of the company
-- twice and checked the validity chains of some drivers, then probed every
-- driver against those sets for the page's total: on 20,000 drivers about
-- 60 ms of a statement whose page is 20 rows.
--
-- Whether a driver has an expired document on a day does not depend on the
-- day in any way a stored date cannot capture. A document's effective status
-- (docs/drivers-and-documents.md) is the worst of its own and those of the
-- documents its chain picks; which one a chain step picks depends only on
-- which documents have a file. So a document is effectively expired on day
-- t exactly when it and every document its chain picks have a file and the
-- earliest of their valid_until dates is before t; and a driver has an
-- expired document from the day after the earliest such date on. That day
-- is kept here, one row per driver who has one, by triggers on every write
-- of documents and of the company's chains or retired types.

-- konvoj_expired_from is the first day on which the driver has a document
-- whose effective status is expired (NULL: none ever will, as things
-- stand), with the same rules as konvoj_document_statuses: the types in
-- hidden are left out, and a chain step picks its first alternative with a
-- file, else its first. TestExpiredFromMatchesDocumentStatuses keeps the two
-- in step.
-- +goose StatementBegin
CREATE FUNCTION konvoj_expired_from(company uuid, driver uuid, chains jsonb, hidden text[])
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

-- Soft-deleted drivers keep their row: the list joins the live drivers.
CREATE TABLE driver_expiry (
    driver_id    uuid PRIMARY KEY REFERENCES drivers (id) ON DELETE CASCADE,
    company_id   uuid NOT NULL REFERENCES companies (id),
    expired_from date NOT NULL
);

CREATE INDEX driver_expiry_company_idx ON driver_expiry (company_id, expired_from) INCLUDE (driver_id);

SELECT konvoj_enable_tenant_rls('driver_expiry');

-- konvoj_refresh_expiry works the given drivers' rows out again. The
-- company's facts row is share-locked first: a change of the company's
-- chains (konvoj_refresh_document_facts locks it for update) then waits
-- for this transaction, or this one for it and reads its chains, so that
-- neither leaves a row worked out from the other's old state.
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

-- konvoj_documents_changed refreshes the rows of the drivers whose
-- documents a statement wrote, whoever runs it (the services, an import,
-- the seeds). An update that changes none of the columns the rule reads
-- (a note) refreshes nothing.
-- +goose StatementBegin
CREATE FUNCTION konvoj_documents_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        FOR r IN SELECT company_id, array_agg(DISTINCT driver_id) AS ids FROM new_rows GROUP BY 1 LOOP
            PERFORM konvoj_refresh_expiry(r.company_id, r.ids);
        END LOOP;
    ELSIF TG_OP = 'UPDATE' THEN
        FOR r IN
            SELECT x.company_id, array_agg(DISTINCT x.driver_id) AS ids FROM (
                SELECT n.company_id, n.driver_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                WHERE (n.company_id, n.driver_id, n.type, n.current_file_id, n.valid_until)
                    IS DISTINCT FROM (o.company_id, o.driver_id, o.type, o.current_file_id, o.valid_until)
                UNION ALL
                SELECT o.company_id, o.driver_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                WHERE (n.company_id, n.driver_id) IS DISTINCT FROM (o.company_id, o.driver_id)
            ) x GROUP BY 1
        LOOP
            PERFORM konvoj_refresh_expiry(r.company_id, r.ids);
        END LOOP;
    ELSE
        FOR r IN SELECT company_id, array_agg(DISTINCT driver_id) AS ids FROM old_rows GROUP BY 1 LOOP
            PERFORM konvoj_refresh_expiry(r.company_id, r.ids);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER driver_documents_expiry_insert AFTER INSERT ON driver_documents
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_documents_changed();
CREATE TRIGGER driver_documents_expiry_update AFTER UPDATE ON driver_documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_documents_changed();
CREATE TRIGGER driver_documents_expiry_delete AFTER DELETE ON driver_documents
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_documents_changed();
-- Also under session_replication_role = replica, which the scale seed uses
-- to load documents.
ALTER TABLE driver_documents ENABLE ALWAYS TRIGGER driver_documents_expiry_insert;
ALTER TABLE driver_documents ENABLE ALWAYS TRIGGER driver_documents_expiry_update;
ALTER TABLE driver_documents ENABLE ALWAYS TRIGGER driver_documents_expiry_delete;

-- A change of the company's chains or retired types changes the rule for
-- every driver of the company.
-- +goose StatementBegin
CREATE FUNCTION konvoj_chains_changed() RETURNS trigger
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

CREATE TRIGGER company_document_facts_expiry AFTER UPDATE ON company_document_facts
    FOR EACH ROW
    WHEN (OLD.chains IS DISTINCT FROM NEW.chains OR OLD.retired IS DISTINCT FROM NEW.retired)
    EXECUTE FUNCTION konvoj_chains_changed();
ALTER TABLE company_document_facts ENABLE ALWAYS TRIGGER company_document_facts_expiry;

-- The documents stored so far.
INSERT INTO driver_expiry (driver_id, company_id, expired_from)
SELECT d.id, d.company_id, x.expired_from
FROM drivers d
JOIN company_document_facts f ON f.company_id = d.company_id
CROSS JOIN LATERAL (SELECT konvoj_expired_from(d.company_id, d.id, f.chains, f.retired) AS expired_from) x
WHERE x.expired_from IS NOT NULL;

-- +goose Down
DROP TRIGGER IF EXISTS company_document_facts_expiry ON company_document_facts;
DROP TRIGGER IF EXISTS driver_documents_expiry_insert ON driver_documents;
DROP TRIGGER IF EXISTS driver_documents_expiry_update ON driver_documents;
DROP TRIGGER IF EXISTS driver_documents_expiry_delete ON driver_documents;
DROP FUNCTION IF EXISTS konvoj_chains_changed();
DROP FUNCTION IF EXISTS konvoj_documents_changed();
DROP FUNCTION IF EXISTS konvoj_refresh_expiry(uuid, uuid[]);
DROP TABLE IF EXISTS driver_expiry;
DROP FUNCTION IF EXISTS konvoj_expired_from(uuid, uuid, jsonb, text[]);
