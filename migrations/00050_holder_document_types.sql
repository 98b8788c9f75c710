-- Documents of vehicles and trailers go through the drivers' document
-- machinery (docs/fleet.md, "Documents of vehicles and trailers").
--
-- The company's retired types, validity chains and type order are read per
-- holder type: called with the company alone they are the drivers' (as
-- every caller of the drivers' side does), so a vehicle's custom type never
-- shows among a driver's. konvoj_document_statuses reads the documents of
-- any holder by its id (holder_id), the one status rule for all of them.
--
-- The alerts of the daily scan name the document's holder: a fleet
-- document's alert has no driver.

-- +goose Up
DROP FUNCTION konvoj_retired_document_types(uuid);
-- +goose StatementBegin
CREATE FUNCTION konvoj_retired_document_types(company uuid, holder text DEFAULT 'driver') RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(code ORDER BY seq), '{}') FROM document_types
    WHERE company_id = company AND holder_type = holder AND retired
$$;
-- +goose StatementEnd

-- The base cap (work_permit by residence_permit, else visa_biometrics) is
-- the drivers'; a custom type's cap is a type of its own holder type.
DROP FUNCTION konvoj_document_chains(uuid);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_chains(company uuid, holder text DEFAULT 'driver') RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE caps(document_type, alts) AS (
        SELECT 'work_permit', ARRAY['residence_permit', 'visa_biometrics'] WHERE holder = 'driver'
        UNION ALL
        SELECT t.code, ARRAY[t.capped_by] FROM document_types t
        WHERE t.company_id = company AND t.holder_type = holder AND t.capped_by IS NOT NULL AND NOT t.retired
            AND NOT EXISTS (SELECT 1 FROM document_types r WHERE r.company_id = company AND r.code = t.capped_by AND r.retired)
    ),
    chain(document_type, step, alts, path) AS (
        SELECT c.document_type, 1, c.alts, ARRAY[c.document_type] FROM caps c
        UNION ALL
        SELECT ch.document_type, ch.step + 1, c.alts, ch.path || c.document_type
        FROM chain ch JOIN caps c ON c.document_type = ANY (ch.alts)
        WHERE ch.step < 20 AND NOT c.document_type = ANY (ch.path)
    )
    SELECT coalesce(jsonb_object_agg(document_type, steps), '{}')
    FROM (SELECT document_type, jsonb_agg(to_jsonb(alts) ORDER BY step) AS steps FROM chain GROUP BY document_type) x
$$;
-- +goose StatementEnd

DROP FUNCTION konvoj_document_type_order(uuid);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_type_order(company uuid, holder text DEFAULT 'driver') RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce((SELECT array_agg(b.type ORDER BY b.ord) FROM konvoj_builtin_document_types(holder) b), '{}')
        || coalesce((SELECT array_agg(code ORDER BY seq) FROM document_types
            WHERE company_id = company AND holder_type = holder), '{}')
$$;
-- +goose StatementEnd

-- A holder's documents with their own and effective status: the holder is
-- a driver, a vehicle or a trailer, named by its id.
CREATE INDEX driver_documents_fleet_status_idx ON driver_documents (company_id, holder_id, type)
    WHERE holder_type <> 'driver';
DROP FUNCTION konvoj_document_statuses(uuid, uuid, date, jsonb, text[], text[]);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_statuses(company uuid, driver uuid, today date, chains jsonb, hidden text[], types text[] DEFAULT NULL)
RETURNS TABLE (id uuid, type text, own_status text, status text, limited_by text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH own AS MATERIALIZED (
        SELECT dd.id, dd.type, konvoj_document_status(dd.current_file_id IS NOT NULL, dd.valid_until, today) AS status
        FROM driver_documents dd
        WHERE dd.company_id = company AND (dd.driver_id = driver OR (dd.holder_type <> 'driver' AND dd.holder_id = driver))
            AND dd.type <> ALL (hidden) AND (types IS NULL OR dd.type = ANY (types))
    )
    SELECT o.id, o.type, o.status,
        CASE WHEN konvoj_status_rank(c.status) > konvoj_status_rank(o.status) THEN c.status ELSE o.status END,
        CASE WHEN konvoj_status_rank(c.status) > konvoj_status_rank(o.status) THEN c.limited_by END
    FROM own o
    LEFT JOIN LATERAL (
        SELECT (array_agg(p.status ORDER BY konvoj_status_rank(p.status) DESC))[1] AS status,
            (array_agg(p.type ORDER BY s.step))[1] AS limited_by
        FROM jsonb_array_elements(chains -> o.type) WITH ORDINALITY AS s(alts, step)
        CROSS JOIN LATERAL (
            SELECT x.type, x.status
            FROM jsonb_array_elements_text(s.alts) WITH ORDINALITY AS a(type, pos)
            JOIN own x ON x.type = a.type
            ORDER BY x.status = 'no_data', a.pos
            LIMIT 1
        ) p
    ) c ON chains ? o.type
$$;
-- +goose StatementEnd

ALTER TABLE document_alerts
    ADD COLUMN holder_type text NOT NULL DEFAULT 'driver' CHECK (holder_type IN ('driver', 'vehicle', 'trailer')),
    ADD COLUMN vehicle_id uuid,
    ADD COLUMN trailer_id uuid,
    ALTER COLUMN driver_id DROP NOT NULL,
    ADD COLUMN holder_id uuid GENERATED ALWAYS AS (coalesce(driver_id, vehicle_id, trailer_id)) STORED;

-- +goose Down
DELETE FROM notifications WHERE alert_id IN (SELECT id FROM document_alerts WHERE holder_type <> 'driver');
DELETE FROM document_alerts WHERE holder_type <> 'driver';
ALTER TABLE document_alerts DROP COLUMN holder_id, DROP COLUMN vehicle_id, DROP COLUMN trailer_id, DROP COLUMN holder_type,
    ALTER COLUMN driver_id SET NOT NULL;
DROP FUNCTION konvoj_document_statuses(uuid, uuid, date, jsonb, text[], text[]);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_statuses(company uuid, driver uuid, today date, chains jsonb, hidden text[], types text[] DEFAULT NULL)
RETURNS TABLE (id uuid, type text, own_status text, status text, limited_by text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH own AS MATERIALIZED (
        SELECT dd.id, dd.type, konvoj_document_status(dd.current_file_id IS NOT NULL, dd.valid_until, today) AS status
        FROM driver_documents dd
        WHERE dd.company_id = company AND dd.driver_id = driver AND dd.type <> ALL (hidden)
            AND (types IS NULL OR dd.type = ANY (types))
    )
    SELECT o.id, o.type, o.status,
        CASE WHEN konvoj_status_rank(c.status) > konvoj_status_rank(o.status) THEN c.status ELSE o.status END,
        CASE WHEN konvoj_status_rank(c.status) > konvoj_status_rank(o.status) THEN c.limited_by END
    FROM own o
    LEFT JOIN LATERAL (
        SELECT (array_agg(p.status ORDER BY konvoj_status_rank(p.status) DESC))[1] AS status,
            (array_agg(p.type ORDER BY s.step))[1] AS limited_by
        FROM jsonb_array_elements(chains -> o.type) WITH ORDINALITY AS s(alts, step)
        CROSS JOIN LATERAL (
            SELECT x.type, x.status
            FROM jsonb_array_elements_text(s.alts) WITH ORDINALITY AS a(type, pos)
            JOIN own x ON x.type = a.type
            ORDER BY x.status = 'no_data', a.pos
            LIMIT 1
        ) p
    ) c ON chains ? o.type
$$;
-- +goose StatementEnd
DROP INDEX driver_documents_fleet_status_idx;
DROP FUNCTION konvoj_document_type_order(uuid, text);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_type_order(company uuid) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ARRAY['passport', 'visa_biometrics', 'residence_permit', 'work_permit',
        'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance', 'travel_insurance',
        'drivers_license', 'adr_certificate', 'tachograph_card', 'code_95', 'medical_examination']
        || coalesce((SELECT array_agg(code ORDER BY seq) FROM document_types WHERE company_id = company), '{}')
$$;
-- +goose StatementEnd
DROP FUNCTION konvoj_document_chains(uuid, text);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_chains(company uuid) RETURNS jsonb
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH RECURSIVE caps(document_type, alts) AS (
        SELECT 'work_permit', ARRAY['residence_permit', 'visa_biometrics']
        UNION ALL
        SELECT t.code, ARRAY[t.capped_by] FROM document_types t
        WHERE t.company_id = company AND t.capped_by IS NOT NULL AND NOT t.retired
            AND NOT EXISTS (SELECT 1 FROM document_types r WHERE r.company_id = company AND r.code = t.capped_by AND r.retired)
    ),
    chain(document_type, step, alts, path) AS (
        SELECT c.document_type, 1, c.alts, ARRAY[c.document_type] FROM caps c
        UNION ALL
        SELECT ch.document_type, ch.step + 1, c.alts, ch.path || c.document_type
        FROM chain ch JOIN caps c ON c.document_type = ANY (ch.alts)
        WHERE ch.step < 20 AND NOT c.document_type = ANY (ch.path)
    )
    SELECT coalesce(jsonb_object_agg(document_type, steps), '{}')
    FROM (SELECT document_type, jsonb_agg(to_jsonb(alts) ORDER BY step) AS steps FROM chain GROUP BY document_type) x
$$;
-- +goose StatementEnd
DROP FUNCTION konvoj_retired_document_types(uuid, text);
-- +goose StatementBegin
CREATE FUNCTION konvoj_retired_document_types(company uuid) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(code ORDER BY seq), '{}') FROM document_types WHERE company_id = company AND retired
$$;
-- +goose StatementEnd
