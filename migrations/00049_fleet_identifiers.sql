-- Plates and VINs of a company's vehicles and trailers are unique together
-- (docs/fleet.md): a plate is compared without spaces and dashes and
-- without regard to case, a VIN as stored (upper case). fleet_identifiers
-- holds one row per live record's plate and VIN under that normal form;
-- its primary key is what holds under concurrent writes. Triggers keep it:
-- a write of a record's plate or VIN, or its soft delete, frees the old
-- keys and takes the new ones. A key another live record holds is refused
-- with SQLSTATE 23505 on fleet_identifiers_pkey, the holder named in the
-- detail (holder type, id, internal number), so the answer can name it.
--
-- The per-table unique indexes on the plate and the VIN go: they compared
-- the text as written and would refuse first, without naming the record.
-- The lists get their indexes: the change feed, the sorts, the search.

-- +goose Up
-- A trailer has a colour and a first registration date as a vehicle has.
ALTER TABLE trailers ADD COLUMN color varchar(50), ADD COLUMN first_registration_date date;

DROP INDEX vehicles_company_plate_number_key;
DROP INDEX vehicles_company_vin_key;
DROP INDEX trailers_company_plate_number_key;

CREATE TABLE fleet_identifiers (
    company_id  uuid NOT NULL REFERENCES companies (id),
    kind        text NOT NULL CHECK (kind IN ('plate', 'vin')),
    key         text NOT NULL,
    holder_type text NOT NULL CHECK (holder_type IN ('vehicle', 'trailer')),
    holder_id   uuid NOT NULL,
    CONSTRAINT fleet_identifiers_pkey PRIMARY KEY (company_id, kind, key)
);
CREATE INDEX fleet_identifiers_holder_idx ON fleet_identifiers (holder_id);

SELECT konvoj_enable_tenant_rls('fleet_identifiers');

-- The normal form of a plate: without white space and dashes, upper case.
-- +goose StatementBegin
CREATE FUNCTION konvoj_plate_key(plate text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT nullif(upper(regexp_replace(plate, '[[:space:]-]+', '', 'g')), '')
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_identifiers() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    holder text := CASE TG_TABLE_NAME WHEN 'vehicles' THEN 'vehicle' ELSE 'trailer' END;
    k record;
    other record;
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF (NEW.plate_number, NEW.vin, NEW.deleted_at IS NULL) IS NOT DISTINCT FROM (OLD.plate_number, OLD.vin, OLD.deleted_at IS NULL) THEN
            RETURN NULL;
        END IF;
        DELETE FROM fleet_identifiers WHERE company_id = OLD.company_id AND holder_id = OLD.id;
    END IF;
    IF NEW.deleted_at IS NOT NULL THEN
        RETURN NULL;
    END IF;
    FOR k IN SELECT * FROM (VALUES ('plate', konvoj_plate_key(NEW.plate_number)), ('vin', upper(nullif(NEW.vin, '')))) AS v(kind, key)
        WHERE v.key IS NOT NULL LOOP
        INSERT INTO fleet_identifiers (company_id, kind, key, holder_type, holder_id)
        VALUES (NEW.company_id, k.kind, k.key, holder, NEW.id)
        ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            SELECT i.holder_type, i.holder_id, coalesce(v.internal_number, t.internal_number) AS number INTO other
            FROM fleet_identifiers i
            LEFT JOIN vehicles v ON i.holder_type = 'vehicle' AND v.id = i.holder_id
            LEFT JOIN trailers t ON i.holder_type = 'trailer' AND t.id = i.holder_id
            WHERE i.company_id = NEW.company_id AND i.kind = k.kind AND i.key = k.key;
            RAISE EXCEPTION 'duplicate % of % %', k.kind, other.holder_type, other.number
                USING ERRCODE = 'unique_violation', CONSTRAINT = 'fleet_identifiers_pkey', TABLE = 'fleet_identifiers',
                    COLUMN = k.kind, DETAIL = concat_ws(' ', k.kind, other.holder_type, other.holder_id, other.number);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER vehicles_identifiers AFTER INSERT OR UPDATE OF plate_number, vin, deleted_at ON vehicles
    FOR EACH ROW EXECUTE FUNCTION konvoj_fleet_identifiers();
CREATE TRIGGER trailers_identifiers AFTER INSERT OR UPDATE OF plate_number, vin, deleted_at ON trailers
    FOR EACH ROW EXECUTE FUNCTION konvoj_fleet_identifiers();

-- The live records' keys as they are; of records that already share one,
-- the first keeps it.
INSERT INTO fleet_identifiers (company_id, kind, key, holder_type, holder_id)
SELECT company_id, kind, key, holder_type, id FROM (
    SELECT company_id, 'plate' AS kind, konvoj_plate_key(plate_number) AS key, 'vehicle' AS holder_type, id, created_at FROM vehicles WHERE deleted_at IS NULL
    UNION ALL SELECT company_id, 'vin', upper(nullif(vin, '')), 'vehicle', id, created_at FROM vehicles WHERE deleted_at IS NULL
    UNION ALL SELECT company_id, 'plate', konvoj_plate_key(plate_number), 'trailer', id, created_at FROM trailers WHERE deleted_at IS NULL
    UNION ALL SELECT company_id, 'vin', upper(nullif(vin, '')), 'trailer', id, created_at FROM trailers WHERE deleted_at IS NULL
) x WHERE key IS NOT NULL
ORDER BY created_at, id
ON CONFLICT DO NOTHING;

-- The search text (plate, VIN, internal number, make, model), lower case
-- and without accents, and its trigram index; konvoj_fleet_search reads it
-- past the policies, as konvoj_driver_search does for drivers
-- (migrations/00010_driver_search_under_rls.sql).
ALTER TABLE vehicles ADD COLUMN search_text text GENERATED ALWAYS AS (
    konvoj_unaccent(lower(internal_number || ' ' || coalesce(plate_number || ' ' || konvoj_plate_key(plate_number) || ' ', '')
        || coalesce(vin || ' ', '') || coalesce(make || ' ', '') || coalesce(model, '')))) STORED;
ALTER TABLE trailers ADD COLUMN search_text text GENERATED ALWAYS AS (
    konvoj_unaccent(lower(internal_number || ' ' || coalesce(plate_number || ' ' || konvoj_plate_key(plate_number) || ' ', '')
        || coalesce(vin || ' ', '') || coalesce(make || ' ', '') || coalesce(model, '')))) STORED;
CREATE INDEX vehicles_search_text_trgm_idx ON vehicles USING gin (search_text gin_trgm_ops);
CREATE INDEX trailers_search_text_trgm_idx ON trailers USING gin (search_text gin_trgm_ops);

-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_search(company uuid, holder text, word text) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 100
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF current_setting('role') = 'konvoj_app' AND company IS DISTINCT FROM konvoj_company_id() THEN
        RETURN;
    END IF;
    IF holder = 'vehicle' THEN
        RETURN QUERY SELECT v.id FROM vehicles v WHERE v.company_id = company
            AND v.search_text LIKE '%' || konvoj_unaccent(lower(word)) || '%';
    ELSE
        RETURN QUERY SELECT t.id FROM trailers t WHERE t.company_id = company
            AND t.search_text LIKE '%' || konvoj_unaccent(lower(word)) || '%';
    END IF;
END
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION konvoj_fleet_search(uuid, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION konvoj_fleet_search(uuid, text, text) TO konvoj_app;

-- The lists' orders and the change feed, each an index range of the
-- company's rows.
CREATE INDEX vehicles_company_plate_idx ON vehicles (company_id, plate_number, id) WHERE deleted_at IS NULL;
CREATE INDEX vehicles_company_created_idx ON vehicles (company_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX vehicles_company_updated_at_idx ON vehicles (company_id, updated_at, id);
CREATE INDEX vehicles_company_live_seq_idx ON vehicles (company_id, internal_seq, id) WHERE deleted_at IS NULL;
CREATE INDEX trailers_company_plate_idx ON trailers (company_id, plate_number, id) WHERE deleted_at IS NULL;
CREATE INDEX trailers_company_created_idx ON trailers (company_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX trailers_company_updated_at_idx ON trailers (company_id, updated_at, id);
CREATE INDEX trailers_company_live_seq_idx ON trailers (company_id, internal_seq, id) WHERE deleted_at IS NULL;
-- A record's documents by holder, for its summary and readiness.
CREATE INDEX driver_documents_vehicle_idx ON driver_documents (vehicle_id, type) INCLUDE (current_file_id, valid_until)
    WHERE vehicle_id IS NOT NULL;
CREATE INDEX driver_documents_trailer_idx ON driver_documents (trailer_id, type) INCLUDE (current_file_id, valid_until)
    WHERE trailer_id IS NOT NULL;

-- Audit rows of vehicles and trailers.
-- +goose StatementBegin
DO $$
DECLARE def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
        || replace(def, 'ARRAY[', 'ARRAY[''vehicle''::text, ''trailer''::text, ');
END $$;
-- +goose StatementEnd

-- +goose Down
DELETE FROM audit_logs WHERE entity_type IN ('vehicle', 'trailer');
-- +goose StatementBegin
DO $$
DECLARE def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
        || replace(def, '''vehicle''::text, ''trailer''::text, ', '');
END $$;
-- +goose StatementEnd
DROP INDEX driver_documents_vehicle_idx;
DROP INDEX driver_documents_trailer_idx;
DROP INDEX vehicles_company_plate_idx;
DROP INDEX vehicles_company_created_idx;
DROP INDEX vehicles_company_updated_at_idx;
DROP INDEX vehicles_company_live_seq_idx;
DROP INDEX trailers_company_plate_idx;
DROP INDEX trailers_company_created_idx;
DROP INDEX trailers_company_updated_at_idx;
DROP INDEX trailers_company_live_seq_idx;
DROP FUNCTION konvoj_fleet_search(uuid, text, text);
ALTER TABLE vehicles DROP COLUMN search_text;
ALTER TABLE trailers DROP COLUMN search_text;
DROP TRIGGER vehicles_identifiers ON vehicles;
DROP TRIGGER trailers_identifiers ON trailers;
DROP FUNCTION konvoj_fleet_identifiers();
DROP TABLE fleet_identifiers;
DROP FUNCTION konvoj_plate_key(text);
CREATE UNIQUE INDEX vehicles_company_plate_number_key ON vehicles (company_id, plate_number) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX vehicles_company_vin_key ON vehicles (company_id, vin) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX trailers_company_plate_number_key ON trailers (company_id, plate_number) WHERE deleted_at IS NULL;
ALTER TABLE trailers DROP COLUMN color, DROP COLUMN first_registration_date;
