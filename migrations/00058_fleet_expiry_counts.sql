-- +goose Up
-- The vehicles and trailers lists read their totals and the expired filter
-- from what triggers keep, as the drivers list does (driver_counts,
-- driver_expiry): counted on each request, the unfiltered total read every
-- live record of the company (20,000 index entries on a 20,000-vehicle
-- company, for a page of 20) and document_status=expired probed every
-- record against the company's expired documents (docs/performance.md,
-- "The vehicles list").
--
-- fleet_counts are changes, as driver_counts: the company's live records
-- of a holder type, status and type are the sum of live over its rows. A
-- write of vehicles or trailers only ever inserts rows here, so it waits
-- for no other writer; the daily job compact_driver_counts folds each
-- company's rows into one per holder type, status and type.
CREATE TABLE fleet_counts (
    company_id  uuid NOT NULL REFERENCES companies (id),
    holder_type text NOT NULL CHECK (holder_type IN ('vehicle', 'trailer')),
    status      text NOT NULL,
    type        text NOT NULL,
    live        integer NOT NULL
);

CREATE INDEX fleet_counts_company_idx ON fleet_counts (company_id, holder_type, status, type) INCLUDE (live);

SELECT konvoj_enable_tenant_rls('fleet_counts');

-- fleet_expiry has one row per vehicle and trailer (written when the
-- record is inserted, so that a document write always finds its holder's
-- row to lock): expired_from is the first day on which the record has an
-- expired document, NULL when none ever will as things stand. A fleet
-- document's status (konvoj_document_status) depends only on its file and
-- its valid_until, with no chain, so a document is expired on day t exactly
-- when it has a file and valid_until < t, and the record has one from the
-- day after the earliest such valid_until: a date, not a status, so the
-- list applies today when it reads it and the row is right on every day.
-- Every type counts, retired ones too, as the per-request filter did.
-- live mirrors deleted_at IS NULL, so that the expired list's total is one
-- index range.
CREATE TABLE fleet_expiry (
    holder_id    uuid PRIMARY KEY,
    company_id   uuid NOT NULL REFERENCES companies (id),
    holder_type  text NOT NULL CHECK (holder_type IN ('vehicle', 'trailer')),
    live         boolean NOT NULL,
    expired_from date
);

CREATE INDEX fleet_expiry_company_idx ON fleet_expiry (company_id, holder_type, expired_from)
    INCLUDE (holder_id, live) WHERE expired_from IS NOT NULL;

SELECT konvoj_enable_tenant_rls('fleet_expiry');

-- konvoj_fleet_expired_from works a record's expired_from out from its
-- documents, from the index of its holder type's documents (one leaf, no
-- heap visit).
-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_expired_from(holder text, record uuid) RETURNS date
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT CASE $1
        WHEN 'vehicle' THEN (SELECT min(dd.valid_until) + 1 FROM driver_documents dd
            WHERE dd.vehicle_id = $2 AND dd.current_file_id IS NOT NULL)
        ELSE (SELECT min(dd.valid_until) + 1 FROM driver_documents dd
            WHERE dd.trailer_id = $2 AND dd.current_file_id IS NOT NULL) END
$$;
-- +goose StatementEnd

-- konvoj_refresh_fleet_expiry works the given records' rows out again.
-- It locks their rows first, in id order: two transactions writing
-- documents of one record at once then take turns, and the second works
-- the record out after the first has committed (each statement of this
-- function reads what is committed when it starts), so neither leaves a
-- date that misses the other's document. Writes of other records do not
-- wait.
-- +goose StatementBegin
CREATE FUNCTION konvoj_refresh_fleet_expiry(holder text, ids uuid[]) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    PERFORM 1 FROM fleet_expiry e WHERE e.holder_id = ANY (ids) ORDER BY e.holder_id FOR NO KEY UPDATE;
    UPDATE fleet_expiry e SET expired_from = k.expired_from
    FROM (SELECT h.id, konvoj_fleet_expired_from(holder, h.id) AS expired_from FROM unnest(ids) AS h(id)) k
    WHERE e.holder_id = k.id AND e.expired_from IS DISTINCT FROM k.expired_from;
END
$$;
-- +goose StatementEnd

-- konvoj_fleet_documents_changed refreshes the rows of the vehicles and
-- trailers whose documents a statement wrote, whoever runs it (the
-- services, an import, the seeds). A statement that writes drivers'
-- documents only, or changes none of the columns the rule reads (a note),
-- refreshes nothing. It is independent of the other triggers on documents.
-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_documents_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        FOR r IN SELECT holder_type, array_agg(DISTINCT holder_id ORDER BY holder_id) AS ids FROM new_rows
            WHERE holder_type <> 'driver' AND current_file_id IS NOT NULL AND valid_until IS NOT NULL GROUP BY 1 LOOP
            PERFORM konvoj_refresh_fleet_expiry(r.holder_type, r.ids);
        END LOOP;
    ELSIF TG_OP = 'UPDATE' THEN
        FOR r IN
            SELECT x.holder_type, array_agg(DISTINCT x.holder_id ORDER BY x.holder_id) AS ids FROM (
                SELECT n.holder_type, n.holder_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                WHERE (n.holder_type, n.holder_id, n.current_file_id IS NULL, n.valid_until)
                    IS DISTINCT FROM (o.holder_type, o.holder_id, o.current_file_id IS NULL, o.valid_until)
                UNION ALL
                SELECT o.holder_type, o.holder_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                WHERE (n.holder_type, n.holder_id) IS DISTINCT FROM (o.holder_type, o.holder_id)
            ) x WHERE x.holder_type <> 'driver' GROUP BY 1
        LOOP
            PERFORM konvoj_refresh_fleet_expiry(r.holder_type, r.ids);
        END LOOP;
    ELSE
        FOR r IN SELECT holder_type, array_agg(DISTINCT holder_id ORDER BY holder_id) AS ids FROM old_rows
            WHERE holder_type <> 'driver' AND current_file_id IS NOT NULL AND valid_until IS NOT NULL GROUP BY 1 LOOP
            PERFORM konvoj_refresh_fleet_expiry(r.holder_type, r.ids);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER driver_documents_fleet_expiry_insert AFTER INSERT ON driver_documents
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_documents_changed();
CREATE TRIGGER driver_documents_fleet_expiry_update AFTER UPDATE ON driver_documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_documents_changed();
CREATE TRIGGER driver_documents_fleet_expiry_delete AFTER DELETE ON driver_documents
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_documents_changed();
-- Also under session_replication_role = replica, which the scale seed uses.
ALTER TABLE driver_documents ENABLE ALWAYS TRIGGER driver_documents_fleet_expiry_insert;
ALTER TABLE driver_documents ENABLE ALWAYS TRIGGER driver_documents_fleet_expiry_update;
ALTER TABLE driver_documents ENABLE ALWAYS TRIGGER driver_documents_fleet_expiry_delete;

-- konvoj_fleet_records_changed keeps fleet_counts and the records' rows of
-- fleet_expiry after every statement that writes vehicles or trailers: it
-- adds a row of counts per company, status and type whose number of live
-- records the statement changed (most updates, an odometer reading, add
-- nothing), gives a new record its row, follows a soft delete or restore in
-- live and drops a deleted record's row.
-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_records_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    holder text := CASE TG_TABLE_NAME WHEN 'vehicles' THEN 'vehicle' ELSE 'trailer' END;
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO fleet_counts (company_id, holder_type, status, type, live)
        SELECT company_id, holder, status, type, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 3, 4;
        INSERT INTO fleet_expiry (holder_id, company_id, holder_type, live)
        SELECT id, company_id, holder, deleted_at IS NULL FROM new_rows
        ON CONFLICT (holder_id) DO NOTHING;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO fleet_counts (company_id, holder_type, status, type, live)
        SELECT company_id, holder, status, type, sum(d) FROM (
            SELECT company_id, status, type, 1 AS d FROM new_rows WHERE deleted_at IS NULL
            UNION ALL
            SELECT company_id, status, type, -1 FROM old_rows WHERE deleted_at IS NULL
        ) r
        GROUP BY 1, 3, 4 HAVING sum(d) <> 0;
        UPDATE fleet_expiry e SET live = n.deleted_at IS NULL
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE e.holder_id = n.id AND (n.deleted_at IS NULL) <> (o.deleted_at IS NULL);
    ELSE
        INSERT INTO fleet_counts (company_id, holder_type, status, type, live)
        SELECT company_id, holder, status, type, -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 3, 4;
        DELETE FROM fleet_expiry e USING old_rows o WHERE e.holder_id = o.id;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER vehicles_fleet_counts_insert AFTER INSERT ON vehicles
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_records_changed();
CREATE TRIGGER vehicles_fleet_counts_update AFTER UPDATE ON vehicles
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_records_changed();
CREATE TRIGGER vehicles_fleet_counts_delete AFTER DELETE ON vehicles
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_records_changed();
CREATE TRIGGER trailers_fleet_counts_insert AFTER INSERT ON trailers
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_records_changed();
CREATE TRIGGER trailers_fleet_counts_update AFTER UPDATE ON trailers
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_records_changed();
CREATE TRIGGER trailers_fleet_counts_delete AFTER DELETE ON trailers
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_fleet_records_changed();
ALTER TABLE vehicles ENABLE ALWAYS TRIGGER vehicles_fleet_counts_insert;
ALTER TABLE vehicles ENABLE ALWAYS TRIGGER vehicles_fleet_counts_update;
ALTER TABLE vehicles ENABLE ALWAYS TRIGGER vehicles_fleet_counts_delete;
ALTER TABLE trailers ENABLE ALWAYS TRIGGER trailers_fleet_counts_insert;
ALTER TABLE trailers ENABLE ALWAYS TRIGGER trailers_fleet_counts_update;
ALTER TABLE trailers ENABLE ALWAYS TRIGGER trailers_fleet_counts_delete;

-- The records stored so far.
INSERT INTO fleet_counts (company_id, holder_type, status, type, live)
SELECT company_id, 'vehicle', status, type, count(*) FROM vehicles WHERE deleted_at IS NULL GROUP BY 1, 3, 4
UNION ALL
SELECT company_id, 'trailer', status, type, count(*) FROM trailers WHERE deleted_at IS NULL GROUP BY 1, 3, 4;

INSERT INTO fleet_expiry (holder_id, company_id, holder_type, live, expired_from)
SELECT id, company_id, 'vehicle', deleted_at IS NULL, konvoj_fleet_expired_from('vehicle', id) FROM vehicles
UNION ALL
SELECT id, company_id, 'trailer', deleted_at IS NULL, konvoj_fleet_expired_from('trailer', id) FROM trailers;

-- +goose Down
DROP TRIGGER IF EXISTS vehicles_fleet_counts_insert ON vehicles;
DROP TRIGGER IF EXISTS vehicles_fleet_counts_update ON vehicles;
DROP TRIGGER IF EXISTS vehicles_fleet_counts_delete ON vehicles;
DROP TRIGGER IF EXISTS trailers_fleet_counts_insert ON trailers;
DROP TRIGGER IF EXISTS trailers_fleet_counts_update ON trailers;
DROP TRIGGER IF EXISTS trailers_fleet_counts_delete ON trailers;
DROP FUNCTION IF EXISTS konvoj_fleet_records_changed();
DROP TRIGGER IF EXISTS driver_documents_fleet_expiry_insert ON driver_documents;
DROP TRIGGER IF EXISTS driver_documents_fleet_expiry_update ON driver_documents;
DROP TRIGGER IF EXISTS driver_documents_fleet_expiry_delete ON driver_documents;
DROP FUNCTION IF EXISTS konvoj_fleet_documents_changed();
DROP FUNCTION IF EXISTS konvoj_refresh_fleet_expiry(text, uuid[]);
DROP FUNCTION IF EXISTS konvoj_fleet_expired_from(text, uuid);
DROP TABLE IF EXISTS fleet_expiry;
DROP TABLE IF EXISTS fleet_counts;
