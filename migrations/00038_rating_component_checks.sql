-- +goose Up
-- Rating a month writes a snapshot per driver and about six component rows
-- per snapshot (docs/performance.md, "Rating a month"). Each component row's
-- foreign key on its snapshot was checked row by row: a lookup and a share
-- lock of the snapshot's key for every row, 110,000 of them when a
-- 20,000-driver company's month is rated for the first time (about half of
-- the 4.7-5.0 s its component rows took). The same guarantee is kept here
-- per statement: the statement's new rows' snapshots are share-locked at
-- once, each snapshot once, and a row whose snapshot is missing fails the
-- statement with the error a foreign key raises (23503, the constraint's
-- name). Deleting a snapshot deletes its rows, as ON DELETE CASCADE did.
--
-- As with a foreign key, the checks run as the table's owner (so under
-- row-level security too), and not under session_replication_role =
-- replica (the scale seed's bulk load).
ALTER TABLE rating_components DROP CONSTRAINT rating_components_snapshot_id_fkey;

-- The snapshot's own key on the company is implied by its key on the driver
-- (company_id, driver_id), whose company is the driver's: two checks per
-- snapshot written where one does.
ALTER TABLE rating_snapshots DROP CONSTRAINT rating_snapshots_company_id_fkey;

-- konvoj_rating_components_check: the snapshots of the statement's inserted
-- rows, or of its updated rows whose snapshot_id changed, exist; they are
-- share-locked (FOR KEY SHARE, as a foreign key check locks them) until the
-- transaction ends, so that none is deleted meanwhile.
-- +goose StatementBegin
CREATE FUNCTION konvoj_rating_components_check() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    wanted uuid[];
    locked integer;
    orphan uuid;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(DISTINCT n.snapshot_id) INTO wanted FROM new_rows n;
    ELSE
        SELECT array_agg(DISTINCT n.snapshot_id) INTO wanted
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE o.snapshot_id IS DISTINCT FROM n.snapshot_id;
    END IF;
    IF wanted IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM FROM rating_snapshots s WHERE s.id = ANY (wanted) FOR KEY SHARE OF s;
    GET DIAGNOSTICS locked = ROW_COUNT;
    IF locked < cardinality(wanted) THEN
        SELECT w INTO orphan FROM unnest(wanted) AS w
        WHERE NOT EXISTS (SELECT FROM rating_snapshots s WHERE s.id = w) LIMIT 1;
        RAISE EXCEPTION 'insert or update on table "rating_components" violates foreign key constraint "rating_components_snapshot_id_fkey"'
            USING ERRCODE = 'foreign_key_violation',
                DETAIL = format('Key (snapshot_id)=(%s) is not present in table "rating_snapshots".', orphan),
                TABLE = 'rating_components', CONSTRAINT = 'rating_components_snapshot_id_fkey';
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER rating_components_check_insert AFTER INSERT ON rating_components
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_rating_components_check();
CREATE TRIGGER rating_components_check_update AFTER UPDATE ON rating_components
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_rating_components_check();

-- konvoj_rating_components_cascade deletes the rows of the deleted snapshots.
-- +goose StatementBegin
CREATE FUNCTION konvoj_rating_components_cascade() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    DELETE FROM rating_components c WHERE c.snapshot_id IN (SELECT o.id FROM old_rows o);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER rating_snapshots_delete_components AFTER DELETE ON rating_snapshots
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_rating_components_cascade();

-- A snapshot's id never changes; were it changed, its rows would lose it.
-- +goose StatementBegin
CREATE FUNCTION konvoj_rating_snapshot_id_fixed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF NEW.id IS DISTINCT FROM OLD.id THEN
        RAISE EXCEPTION 'the id of rating snapshot % cannot change', OLD.id
            USING ERRCODE = 'foreign_key_violation', TABLE = 'rating_snapshots', CONSTRAINT = 'rating_components_snapshot_id_fkey';
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER rating_snapshots_id_fixed BEFORE UPDATE OF id ON rating_snapshots
    FOR EACH ROW EXECUTE FUNCTION konvoj_rating_snapshot_id_fixed();

-- +goose Down
DROP TRIGGER IF EXISTS rating_snapshots_id_fixed ON rating_snapshots;
DROP TRIGGER IF EXISTS rating_snapshots_delete_components ON rating_snapshots;
DROP TRIGGER IF EXISTS rating_components_check_update ON rating_components;
DROP TRIGGER IF EXISTS rating_components_check_insert ON rating_components;
DROP FUNCTION IF EXISTS konvoj_rating_snapshot_id_fixed();
DROP FUNCTION IF EXISTS konvoj_rating_components_cascade();
DROP FUNCTION IF EXISTS konvoj_rating_components_check();
ALTER TABLE rating_snapshots ADD CONSTRAINT rating_snapshots_company_id_fkey
    FOREIGN KEY (company_id) REFERENCES companies (id);
ALTER TABLE rating_components ADD CONSTRAINT rating_components_snapshot_id_fkey
    FOREIGN KEY (snapshot_id) REFERENCES rating_snapshots (id) ON DELETE CASCADE;
