-- Transport units and their readiness (docs/dispatch.md).
--
-- A unit's readiness is kept on its row, explained (the reasons) and with
-- the last day it stays ready (ready_until), so that the dispatchers' board
-- and the units list read it as a column. It is worked out by one set-wise
-- statement (konvoj_unit_readiness) over any set of driver, vehicle and
-- trailer triples: the stored units of a company, a few of them, or a
-- proposed unit that is not saved. Triggers keep the stored rows current on
-- every write that can change a unit's readiness (documents, the driver's,
-- vehicle's or trailer's status, type, tags or citizenship, the company's
-- rules and types), in the transaction of the write; each change of
-- is_ready is queued in transport_unit_changes, which the services turn
-- into the webhook event and the notifications before they commit
-- (internal/units, Flush). The start of each company day runs the
-- recompute for the whole company.

-- +goose Up
ALTER TABLE transport_units
    ADD COLUMN not_ready_reasons jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN ready_until date,
    -- The document that sets ready_until, for the digest's lead window.
    ADD COLUMN ready_limit_holder text,
    ADD COLUMN ready_limit_type text,
    -- The company-local day the stored readiness last changed (or was
    -- first worked out); NULL until the first time (a new unit's first
    -- readiness is no change).
    ADD COLUMN readiness_on date;

-- The units list's default order and the history of a holder.
CREATE INDEX transport_units_company_assigned_idx ON transport_units (company_id, assigned_at DESC, id);
CREATE INDEX transport_units_driver_idx ON transport_units (driver_id, assigned_at DESC);
CREATE INDEX transport_units_vehicle_idx ON transport_units (vehicle_id, assigned_at DESC);
CREATE INDEX transport_units_trailer_idx ON transport_units (trailer_id, assigned_at DESC) WHERE trailer_id IS NOT NULL;

SELECT konvoj_enable_tenant_rls('transport_units');

-- A unit whose is_ready changed, waiting for its event and notifications.
CREATE TABLE transport_unit_changes (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    company_id        uuid NOT NULL REFERENCES companies (id),
    unit_id           uuid NOT NULL,
    previous_is_ready boolean NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transport_unit_changes_company_idx ON transport_unit_changes (company_id, id);
SELECT konvoj_enable_tenant_rls('transport_unit_changes');

-- The last company-local day whose start recomputed the company's units
-- (the daily job runs each day's start once).
CREATE TABLE transport_unit_days (
    company_id uuid PRIMARY KEY REFERENCES companies (id),
    day        date NOT NULL
);
SELECT konvoj_enable_tenant_rls('transport_unit_days');

-- Notifications about a unit (kind transport_unit, stage not_ready or ready).
ALTER TABLE notifications ADD COLUMN unit_id uuid;
ALTER TABLE notifications DROP CONSTRAINT notifications_stage_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_stage_check
    CHECK (stage IN ('filed', 'resolved', 'not_ready', 'ready'));
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review', 'webhook_disabled', 'penalty_dispute', 'transport_unit'));
ALTER TABLE notifications DROP CONSTRAINT notifications_subject_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_subject_check
    CHECK ((kind = 'webhook_disabled') = (webhook_id IS NOT NULL)
        AND (kind = 'penalty_dispute') = (penalty_id IS NOT NULL AND driver_id IS NOT NULL AND stage IS NOT NULL)
        AND (kind = 'transport_unit') = (unit_id IS NOT NULL AND driver_id IS NOT NULL AND stage IS NOT NULL)
        AND (kind IN ('webhook_disabled', 'penalty_dispute', 'transport_unit')) = (alert_id IS NULL));

-- Audit rows of units.
-- +goose StatementBegin
DO $$
DECLARE def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
        || replace(def, 'ARRAY[', 'ARRAY[''transport_unit''::text, ');
END $$;
-- +goose StatementEnd

-- konvoj_unit_readiness works out the readiness of units given as four
-- parallel arrays (a key, the driver, the vehicle, the trailer or NULL) as
-- of on_date, counting a document whose valid_until is before through_date
-- as expired (a trip from on_date to through_date): is_ready, the reasons
-- in the order driver, vehicle, trailer (the holder's status first, then
-- its required documents in the company's type order), ready_until (the
-- earliest valid_until among the required documents of a ready unit) and
-- the document that sets it. A driver's documents are read from their
-- stored effective dates (document_effective: the validity chains apply),
-- a vehicle's and a trailer's from the documents; the required types are
-- the company's rules read once per statement.
-- +goose StatementBegin
CREATE FUNCTION konvoj_unit_readiness(company uuid, on_date date, through_date date,
    keys uuid[], drivers uuid[], vehicles uuid[], trailers uuid[])
RETURNS TABLE (key uuid, is_ready boolean, reasons jsonb, ready_until date, limit_holder text, limit_type text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH f AS MATERIALIZED (
        SELECT cf.required, cf.required_non_eu, cf.tag_rule_for, cf.tag_rule_types,
            konvoj_document_type_order(company, 'driver') AS driver_order,
            konvoj_document_type_order(company, 'vehicle') AS vehicle_order,
            konvoj_document_type_order(company, 'trailer') AS trailer_order
        FROM company_document_facts cf WHERE cf.company_id = company
    ),
    ru AS MATERIALIZED (
        SELECT h.holder, r.document_type, r.required_for
        FROM (VALUES ('vehicle'), ('trailer')) h(holder)
        CROSS JOIN LATERAL konvoj_document_rules(company, h.holder) r
        WHERE r.required
    ),
    u AS MATERIALIZED (
        SELECT x.key, x.driver_id, x.vehicle_id, x.trailer_id
        FROM unnest(keys, drivers, vehicles, trailers) AS x(key, driver_id, vehicle_id, trailer_id)
    ),
    items AS (
        -- The holders' statuses.
        SELECT u.key, 1 AS hpos, 'driver' AS holder_type, d.id AS holder_id, 0 AS pos, NULL::text AS document_type,
            d.status <> 'active' AS not_active, true AS has_file, NULL::date AS until
        FROM u JOIN drivers d ON d.id = u.driver_id AND d.company_id = company
        UNION ALL
        SELECT u.key, 2, 'vehicle', v.id, 0, NULL, v.status <> 'active', true, NULL
        FROM u JOIN vehicles v ON v.id = u.vehicle_id AND v.company_id = company
        UNION ALL
        SELECT u.key, 3, 'trailer', t.id, 0, NULL, t.status <> 'active', true, NULL
        FROM u JOIN trailers t ON t.id = u.trailer_id AND t.company_id = company
        UNION ALL
        -- The driver's required documents (by citizenship and tags).
        SELECT u.key, 1, 'driver', d.id, coalesce(array_position(f.driver_order, rq.type), 1000), rq.type,
            false, coalesce(e.has_file, false), e.until
        FROM u
        JOIN drivers d ON d.id = u.driver_id AND d.company_id = company
        CROSS JOIN f
        CROSS JOIN LATERAL (
            SELECT DISTINCT x.type FROM unnest((CASE WHEN konvoj_eu_citizen(d.citizenship) THEN f.required ELSE f.required_non_eu END)
                || konvoj_tagged_types(f.tag_rule_for, f.tag_rule_types, d.tags)) x(type)
        ) rq
        LEFT JOIN document_effective e ON e.driver_id = d.id AND e.company_id = company AND e.type = rq.type
        UNION ALL
        -- The vehicle's required documents (by its type and tags).
        SELECT u.key, 2, 'vehicle', v.id, coalesce(array_position(f.vehicle_order, ru.document_type), 1000), ru.document_type,
            false, coalesce(dd.current_file_id IS NOT NULL, false), dd.valid_until
        FROM u
        JOIN vehicles v ON v.id = u.vehicle_id AND v.company_id = company
        CROSS JOIN f
        JOIN ru ON ru.holder = 'vehicle' AND konvoj_fleet_type_applies('vehicle', v.type, ru.document_type)
            AND (ru.required_for = 'all' OR (ru.required_for LIKE 'tag:%' AND substr(ru.required_for, 5) = ANY (v.tags)))
        LEFT JOIN driver_documents dd ON dd.vehicle_id = v.id AND dd.company_id = company AND dd.type = ru.document_type
        UNION ALL
        -- The trailer's.
        SELECT u.key, 3, 'trailer', t.id, coalesce(array_position(f.trailer_order, ru.document_type), 1000), ru.document_type,
            false, coalesce(dd.current_file_id IS NOT NULL, false), dd.valid_until
        FROM u
        JOIN trailers t ON t.id = u.trailer_id AND t.company_id = company
        CROSS JOIN f
        JOIN ru ON ru.holder = 'trailer' AND konvoj_fleet_type_applies('trailer', t.type, ru.document_type)
            AND (ru.required_for = 'all' OR (ru.required_for LIKE 'tag:%' AND substr(ru.required_for, 5) = ANY (t.tags)))
        LEFT JOIN driver_documents dd ON dd.trailer_id = t.id AND dd.company_id = company AND dd.type = ru.document_type
    ),
    judged AS (
        SELECT i.*, CASE
                WHEN i.not_active THEN i.holder_type || '_not_active'
                WHEN i.document_type IS NULL THEN NULL
                WHEN NOT i.has_file THEN 'document_missing'
                WHEN i.until < through_date THEN 'document_expired'
            END AS code
        FROM items i
    ),
    agg AS (
        SELECT j.key,
            coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('code', j.code, 'holder_type', j.holder_type,
                'holder_id', j.holder_id, 'document_type', j.document_type,
                'since', CASE WHEN j.code = 'document_expired' THEN j.until + 1 END)) ORDER BY j.hpos, j.pos, j.document_type)
                FILTER (WHERE j.code IS NOT NULL), '[]') AS reasons,
            min(j.until) FILTER (WHERE j.document_type IS NOT NULL AND j.has_file) AS lim_until,
            (array_agg(j.holder_type ORDER BY j.until, j.hpos, j.pos)
                FILTER (WHERE j.document_type IS NOT NULL AND j.has_file AND j.until IS NOT NULL))[1] AS lim_holder,
            (array_agg(j.document_type ORDER BY j.until, j.hpos, j.pos)
                FILTER (WHERE j.document_type IS NOT NULL AND j.has_file AND j.until IS NOT NULL))[1] AS lim_type
        FROM judged j
        GROUP BY j.key
    )
    SELECT u.key, a.reasons = '[]'::jsonb, a.reasons,
        CASE WHEN a.reasons = '[]'::jsonb THEN a.lim_until END,
        CASE WHEN a.reasons = '[]'::jsonb THEN a.lim_holder END,
        CASE WHEN a.reasons = '[]'::jsonb THEN a.lim_type END
    FROM u JOIN agg a ON a.key = u.key
$$;
-- +goose StatementEnd

-- konvoj_refresh_units works out again the readiness of the company's
-- active units (all of them when units is NULL) as of on_date (NULL: the
-- company's today) and stores it; each unit whose is_ready changed from a
-- readiness worked out before is queued in transport_unit_changes. The
-- rows are locked first, in one order, and worked out by the next
-- statement, which sees what a concurrent writer of the same unit
-- committed meanwhile.
-- +goose StatementBegin
CREATE FUNCTION konvoj_refresh_units(company uuid, units uuid[], on_date date DEFAULT NULL) RETURNS integer
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    day date := on_date;
    n integer;
BEGIN
    IF units IS NOT NULL AND cardinality(units) = 0 THEN
        RETURN 0;
    END IF;
    IF day IS NULL THEN
        SELECT konvoj_today(c.timezone) INTO day FROM companies c WHERE c.id = company;
    END IF;
    PERFORM 1 FROM transport_units t
    WHERE t.company_id = company AND t.unassigned_at IS NULL AND t.deleted_at IS NULL
        AND (units IS NULL OR t.id = ANY (units))
    ORDER BY t.id
    FOR NO KEY UPDATE;
    WITH cur AS MATERIALIZED (
        SELECT t.id, t.driver_id, t.vehicle_id, t.trailer_id, t.is_ready, t.readiness_on
        FROM transport_units t
        WHERE t.company_id = company AND t.unassigned_at IS NULL AND t.deleted_at IS NULL
            AND (units IS NULL OR t.id = ANY (units))
    ), r AS (
        SELECT x.* FROM konvoj_unit_readiness(company, day, day,
            ARRAY(SELECT id FROM cur ORDER BY id), ARRAY(SELECT driver_id FROM cur ORDER BY id),
            ARRAY(SELECT vehicle_id FROM cur ORDER BY id), ARRAY(SELECT trailer_id FROM cur ORDER BY id)) x
    ), upd AS (
        UPDATE transport_units t SET is_ready = r.is_ready, not_ready_reasons = r.reasons, ready_until = r.ready_until,
            ready_limit_holder = r.limit_holder, ready_limit_type = r.limit_type, readiness_on = day
        FROM r
        WHERE t.id = r.key AND t.company_id = company
            -- Only what changed is written: a day start rewrites no row
            -- whose readiness stays as it was.
            AND ((t.is_ready, t.not_ready_reasons, t.ready_until, t.ready_limit_holder, t.ready_limit_type)
                IS DISTINCT FROM (r.is_ready, r.reasons, r.ready_until, r.limit_holder, r.limit_type) OR t.readiness_on IS NULL)
        RETURNING t.id, t.is_ready
    ), queued AS (
        INSERT INTO transport_unit_changes (company_id, unit_id, previous_is_ready)
        SELECT company, upd.id, cur.is_ready FROM upd JOIN cur ON cur.id = upd.id
        WHERE cur.readiness_on IS NOT NULL AND cur.is_ready <> upd.is_ready
        ORDER BY upd.id
        RETURNING 1
    )
    SELECT count(*) INTO n FROM upd;
    RETURN n;
END
$$;
-- +goose StatementEnd

-- konvoj_refresh_units_of refreshes the active units that hold any of the
-- ids (drivers, vehicles or trailers: ids are unique across them) in the
-- company.
-- +goose StatementBegin
CREATE FUNCTION konvoj_refresh_units_of(company uuid, holders uuid[]) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    ids uuid[];
BEGIN
    -- Three joins, each a hash or index join, rather than one OR of three
    -- ANY: a statement that writes every document of a company (an import,
    -- a seed) names hundreds of thousands of holders.
    SELECT array_agg(x.id) INTO ids FROM (
        SELECT t.id FROM unnest(holders) h(id) JOIN transport_units t ON t.driver_id = h.id
        WHERE t.company_id = company AND t.unassigned_at IS NULL AND t.deleted_at IS NULL
        UNION
        SELECT t.id FROM unnest(holders) h(id) JOIN transport_units t ON t.vehicle_id = h.id
        WHERE t.company_id = company AND t.unassigned_at IS NULL AND t.deleted_at IS NULL
        UNION
        SELECT t.id FROM unnest(holders) h(id) JOIN transport_units t ON t.trailer_id = h.id
        WHERE t.company_id = company AND t.unassigned_at IS NULL AND t.deleted_at IS NULL
    ) x;
    IF ids IS NOT NULL THEN
        PERFORM konvoj_refresh_units(company, ids);
    END IF;
END
$$;
-- +goose StatementEnd

-- A statement that wrote documents refreshes the units of their holders;
-- an update that changes nothing the rule reads refreshes nothing. It runs
-- after the drivers' effective dates are refreshed (trigger names sort).
-- +goose StatementBegin
CREATE FUNCTION konvoj_units_documents_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        FOR r IN SELECT company_id, array_agg(DISTINCT holder_id) AS ids FROM new_rows GROUP BY 1 LOOP
            PERFORM konvoj_refresh_units_of(r.company_id, r.ids);
        END LOOP;
    ELSIF TG_OP = 'UPDATE' THEN
        FOR r IN
            SELECT n.company_id, array_agg(DISTINCT n.holder_id) AS ids FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.type, n.current_file_id, n.valid_until) IS DISTINCT FROM (o.type, o.current_file_id, o.valid_until)
            GROUP BY 1
        LOOP
            PERFORM konvoj_refresh_units_of(r.company_id, r.ids);
        END LOOP;
    ELSE
        FOR r IN SELECT company_id, array_agg(DISTINCT holder_id) AS ids FROM old_rows GROUP BY 1 LOOP
            PERFORM konvoj_refresh_units_of(r.company_id, r.ids);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER driver_documents_units_insert AFTER INSERT ON driver_documents
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_documents_changed();
CREATE TRIGGER driver_documents_units_update AFTER UPDATE ON driver_documents
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_documents_changed();
CREATE TRIGGER driver_documents_units_delete AFTER DELETE ON driver_documents
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_documents_changed();

-- A driver's, vehicle's or trailer's change of what its readiness reads.
-- +goose StatementBegin
CREATE FUNCTION konvoj_units_holders_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    r record;
BEGIN
    IF TG_TABLE_NAME = 'drivers' THEN
        FOR r IN
            SELECT n.company_id, array_agg(n.id) AS ids FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.status, n.citizenship, n.tags, n.deleted_at) IS DISTINCT FROM (o.status, o.citizenship, o.tags, o.deleted_at)
            GROUP BY 1
        LOOP
            PERFORM konvoj_refresh_units_of(r.company_id, r.ids);
        END LOOP;
    ELSE
        FOR r IN
            SELECT n.company_id, array_agg(n.id) AS ids FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.status, n.type, n.tags, n.deleted_at) IS DISTINCT FROM (o.status, o.type, o.tags, o.deleted_at)
            GROUP BY 1
        LOOP
            PERFORM konvoj_refresh_units_of(r.company_id, r.ids);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER drivers_units_update AFTER UPDATE ON drivers
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_holders_changed();
CREATE TRIGGER vehicles_units_update AFTER UPDATE ON vehicles
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_holders_changed();
CREATE TRIGGER trailers_units_update AFTER UPDATE ON trailers
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_holders_changed();

-- A change of a company's rules or types changes the rule for every unit.
-- +goose StatementBegin
CREATE FUNCTION konvoj_units_rules_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    c uuid;
BEGIN
    FOR c IN SELECT company_id FROM new_rows UNION SELECT company_id FROM old_rows LOOP
        IF EXISTS (SELECT FROM transport_units t WHERE t.company_id = c AND t.unassigned_at IS NULL AND t.deleted_at IS NULL) THEN
            PERFORM konvoj_refresh_units(c, NULL);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION konvoj_units_rules_inserted() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    c uuid;
BEGIN
    FOR c IN SELECT DISTINCT company_id FROM new_rows LOOP
        IF EXISTS (SELECT FROM transport_units t WHERE t.company_id = c AND t.unassigned_at IS NULL AND t.deleted_at IS NULL) THEN
            PERFORM konvoj_refresh_units(c, NULL);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION konvoj_units_rules_deleted() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    c uuid;
BEGIN
    FOR c IN SELECT DISTINCT company_id FROM old_rows LOOP
        IF EXISTS (SELECT FROM transport_units t WHERE t.company_id = c AND t.unassigned_at IS NULL AND t.deleted_at IS NULL) THEN
            PERFORM konvoj_refresh_units(c, NULL);
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER document_rules_units_insert AFTER INSERT ON document_rules
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_rules_inserted();
CREATE TRIGGER document_rules_units_update AFTER UPDATE ON document_rules
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_rules_changed();
CREATE TRIGGER document_rules_units_delete AFTER DELETE ON document_rules
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_rules_deleted();
CREATE TRIGGER document_types_units_insert AFTER INSERT ON document_types
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_rules_inserted();
CREATE TRIGGER document_types_units_update AFTER UPDATE ON document_types
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_rules_changed();
CREATE TRIGGER document_types_units_delete AFTER DELETE ON document_types
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION konvoj_units_rules_deleted();

-- The units stored so far.
SELECT konvoj_refresh_units(c.id, NULL) FROM companies c
WHERE EXISTS (SELECT FROM transport_units t WHERE t.company_id = c.id);
UPDATE transport_units SET readiness_on = NULL;

-- +goose Down
DROP TRIGGER IF EXISTS document_types_units_delete ON document_types;
DROP TRIGGER IF EXISTS document_types_units_update ON document_types;
DROP TRIGGER IF EXISTS document_types_units_insert ON document_types;
DROP TRIGGER IF EXISTS document_rules_units_delete ON document_rules;
DROP TRIGGER IF EXISTS document_rules_units_update ON document_rules;
DROP TRIGGER IF EXISTS document_rules_units_insert ON document_rules;
DROP TRIGGER IF EXISTS trailers_units_update ON trailers;
DROP TRIGGER IF EXISTS vehicles_units_update ON vehicles;
DROP TRIGGER IF EXISTS drivers_units_update ON drivers;
DROP TRIGGER IF EXISTS driver_documents_units_delete ON driver_documents;
DROP TRIGGER IF EXISTS driver_documents_units_update ON driver_documents;
DROP TRIGGER IF EXISTS driver_documents_units_insert ON driver_documents;
DROP FUNCTION IF EXISTS konvoj_units_rules_deleted();
DROP FUNCTION IF EXISTS konvoj_units_rules_inserted();
DROP FUNCTION IF EXISTS konvoj_units_rules_changed();
DROP FUNCTION IF EXISTS konvoj_units_holders_changed();
DROP FUNCTION IF EXISTS konvoj_units_documents_changed();
DROP FUNCTION IF EXISTS konvoj_refresh_units_of(uuid, uuid[]);
DROP FUNCTION IF EXISTS konvoj_refresh_units(uuid, uuid[], date);
DROP FUNCTION IF EXISTS konvoj_unit_readiness(uuid, date, date, uuid[], uuid[], uuid[], uuid[]);
DELETE FROM audit_logs WHERE entity_type = 'transport_unit';
-- +goose StatementBegin
DO $$
DECLARE def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
        || replace(def, '''transport_unit''::text, ', '');
END $$;
-- +goose StatementEnd
DELETE FROM notifications WHERE kind = 'transport_unit';
ALTER TABLE notifications DROP CONSTRAINT notifications_subject_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_subject_check
    CHECK ((kind = 'webhook_disabled') = (webhook_id IS NOT NULL)
        AND (kind = 'penalty_dispute') = (penalty_id IS NOT NULL AND driver_id IS NOT NULL AND stage IS NOT NULL)
        AND (kind IN ('webhook_disabled', 'penalty_dispute')) = (alert_id IS NULL));
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review', 'webhook_disabled', 'penalty_dispute'));
ALTER TABLE notifications DROP CONSTRAINT notifications_stage_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_stage_check CHECK (stage IN ('filed', 'resolved'));
ALTER TABLE notifications DROP COLUMN unit_id;
DROP TABLE transport_unit_changes;
DROP TABLE transport_unit_days;
DROP INDEX transport_units_trailer_idx;
DROP INDEX transport_units_vehicle_idx;
DROP INDEX transport_units_driver_idx;
DROP INDEX transport_units_company_assigned_idx;
ALTER TABLE transport_units DROP COLUMN readiness_on, DROP COLUMN ready_limit_type, DROP COLUMN ready_limit_holder,
    DROP COLUMN ready_until, DROP COLUMN not_ready_reasons;
