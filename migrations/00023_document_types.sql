-- A company's own document types and the validity chains
-- (docs/drivers-and-documents.md, "Custom document types" and "Validity
-- chains").
--
-- A custom type is a row of document_types; every driver of the company
-- has a driver_documents record of it (made when the type is created and
-- with every new driver). Its rule (required, required_for, lead_days,
-- requires_review) is a document_rules row like a built-in type's. A
-- retired type keeps its records and files but leaves the lists, the rules
-- and the chains.
--
-- A chain caps a document's status by another document of the same
-- driver: work_permit by residence_permit (or, when the driver has no
-- residence permit on file, visa_biometrics), and a custom type by the type
-- it names in capped_by. The effective status is the worse of the
-- document's own and its cap's (itself capped, further down the chain).

-- +goose Up

-- The 14 built-in types, which every company has and nobody can remove.
-- +goose StatementBegin
CREATE FUNCTION konvoj_builtin_document_type(code text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT code = ANY (ARRAY['passport', 'visa_biometrics', 'residence_permit', 'work_permit',
        'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance', 'travel_insurance',
        'drivers_license', 'adr_certificate', 'tachograph_card', 'code_95', 'medical_examination'])
$$;
-- +goose StatementEnd

CREATE TABLE document_types (
    company_id  uuid NOT NULL REFERENCES companies (id),
    code        text NOT NULL CHECK (code ~ '^[a-z0-9_]{1,40}$' AND NOT konvoj_builtin_document_type(code)),
    -- Names by language code ({"en": "Driver attestation", "cs": "Atestace řidiče"}).
    names       jsonb NOT NULL CHECK (jsonb_typeof(names) = 'object'),
    has_expiry  boolean NOT NULL DEFAULT true,
    capped_by   text CHECK (capped_by ~ '^[a-z0-9_]{1,40}$' AND capped_by <> code),
    retired     boolean NOT NULL DEFAULT false,
    -- Display order: after the built-in types, oldest first.
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, code)
);
SELECT konvoj_enable_tenant_rls('document_types');

-- Records of custom types: any type code of the right form (the service
-- checks the type exists).
ALTER TABLE driver_documents DROP CONSTRAINT driver_documents_type_check;
ALTER TABLE driver_documents ADD CONSTRAINT driver_documents_type_check CHECK (type ~ '^[a-z0-9_]{1,40}$');

-- Every document type's rule for a company, in display order: the 14
-- built-in types, then the company's live custom types (defaults: not
-- required, 30 lead days); a company's document_rules row overrides.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_document_rules(company uuid)
RETURNS TABLE (document_type text, ord integer, required boolean, required_for text, lead_days integer, requires_review boolean)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT t.type, t.ord, coalesce(r.required, t.required), coalesce(r.required_for, 'all'),
        coalesce(r.lead_days, t.lead_days), coalesce(r.requires_review, false)
    FROM (
        SELECT * FROM (VALUES
            ('passport', 1, true, 90), ('visa_biometrics', 2, false, 90), ('residence_permit', 3, false, 90),
            ('work_permit', 4, false, 90), ('a1_eu', 5, false, 60), ('a1_switzerland', 6, false, 60),
            ('declaration', 7, false, 30), ('health_insurance', 8, false, 30), ('travel_insurance', 9, false, 30),
            ('drivers_license', 10, true, 30), ('adr_certificate', 11, false, 30), ('tachograph_card', 12, true, 30),
            ('code_95', 13, true, 30), ('medical_examination', 14, true, 30)
        ) AS b(type, ord, required, lead_days)
        UNION ALL
        SELECT dt.code, (14 + row_number() OVER (ORDER BY dt.seq))::integer, false, 30
        FROM document_types dt WHERE dt.company_id = company AND NOT dt.retired
    ) AS t(type, ord, required, lead_days)
    LEFT JOIN document_rules r ON r.company_id = company AND r.document_type = t.type
    ORDER BY t.ord
$$;
-- +goose StatementEnd

-- The company's retired custom types (left out of every list).
-- +goose StatementBegin
CREATE FUNCTION konvoj_retired_document_types(company uuid) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(code ORDER BY seq), '{}') FROM document_types WHERE company_id = company AND retired
$$;
-- +goose StatementEnd

-- A status's rank, best first (valid 1 … no_data 5): the worse of two
-- statuses has the higher rank.
-- +goose StatementBegin
CREATE FUNCTION konvoj_status_rank(status text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_position(ARRAY['valid', 'warning', 'expiring_soon', 'expired', 'no_data'], status)
$$;
-- +goose StatementEnd

-- The company's validity chains, read once per statement: a JSON object
-- from each capped type to its steps, nearest cap first; a step is the
-- list of types that may stand as the cap, the first the driver has on file
-- counting (else the first). work_permit: [["residence_permit",
-- "visa_biometrics"]]; a custom type capped by work_permit:
-- [["work_permit"], ["residence_permit", "visa_biometrics"]]. Retired types
-- neither cap nor are capped. The service refuses cycles; the path check
-- only keeps a bad row from looping.
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

-- A driver's documents with their own and their effective status on day
-- today (chains: konvoj_document_chains of the company), leaving out the
-- types in hidden (the retired ones, for lists). limited_by is the type of
-- the nearest cap while the cap's status is the worse; status is then the
-- cap's.
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_statuses(company uuid, driver uuid, today date, chains jsonb, hidden text[])
RETURNS TABLE (id uuid, type text, own_status text, status text, limited_by text)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH own AS MATERIALIZED (
        SELECT dd.id, dd.type, konvoj_document_status(dd.current_file_id IS NOT NULL, dd.valid_until, today) AS status
        FROM driver_documents dd
        WHERE dd.company_id = company AND dd.driver_id = driver AND dd.type <> ALL (hidden)
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

-- The document_status filter reads the company's documents by type.
CREATE INDEX driver_documents_company_type_idx ON driver_documents (company_id, type)
    INCLUDE (driver_id, current_file_id, valid_until);

-- Audit rows for type changes: 'document_type' joins the record kinds the
-- check allows (whatever other migrations added to it stays).
-- +goose StatementBegin
DO $$
DECLARE def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
        || replace(def, 'ARRAY[', 'ARRAY[''document_type''::text, ');
END $$;
-- +goose StatementEnd

-- +goose Down
DELETE FROM audit_logs WHERE entity_type = 'document_type';
-- +goose StatementBegin
DO $$
DECLARE def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check';
    EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
        || replace(def, '''document_type''::text, ', '');
END $$;
-- +goose StatementEnd
DROP INDEX driver_documents_company_type_idx;
DROP FUNCTION konvoj_document_statuses(uuid, uuid, date, jsonb, text[]);
DROP FUNCTION konvoj_document_chains(uuid);
DROP FUNCTION konvoj_status_rank(text);
DROP FUNCTION konvoj_retired_document_types(uuid);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_document_rules(company uuid)
RETURNS TABLE (document_type text, ord integer, required boolean, required_for text, lead_days integer, requires_review boolean)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT t.type, t.ord, coalesce(r.required, t.required), coalesce(r.required_for, 'all'),
        coalesce(r.lead_days, t.lead_days), coalesce(r.requires_review, false)
    FROM (VALUES
        ('passport', 1, true, 90), ('visa_biometrics', 2, false, 90), ('residence_permit', 3, false, 90),
        ('work_permit', 4, false, 90), ('a1_eu', 5, false, 60), ('a1_switzerland', 6, false, 60),
        ('declaration', 7, false, 30), ('health_insurance', 8, false, 30), ('travel_insurance', 9, false, 30),
        ('drivers_license', 10, true, 30), ('adr_certificate', 11, false, 30), ('tachograph_card', 12, true, 30),
        ('code_95', 13, true, 30), ('medical_examination', 14, true, 30)
    ) AS t(type, ord, required, lead_days)
    LEFT JOIN document_rules r ON r.company_id = company AND r.document_type = t.type
    ORDER BY t.ord
$$;
-- +goose StatementEnd
DELETE FROM document_rules WHERE NOT konvoj_builtin_document_type(document_type);
UPDATE driver_documents SET current_file_id = NULL WHERE NOT konvoj_builtin_document_type(type);
DELETE FROM document_files f USING driver_documents dd
    WHERE dd.id = f.document_id AND NOT konvoj_builtin_document_type(dd.type);
DELETE FROM driver_documents WHERE NOT konvoj_builtin_document_type(type);
ALTER TABLE driver_documents DROP CONSTRAINT driver_documents_type_check;
ALTER TABLE driver_documents ADD CONSTRAINT driver_documents_type_check CHECK (type IN (
    'passport', 'visa_biometrics', 'residence_permit', 'work_permit',
    'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance',
    'travel_insurance', 'drivers_license', 'adr_certificate',
    'tachograph_card', 'code_95', 'medical_examination'));
DROP TABLE document_types;
DROP FUNCTION konvoj_builtin_document_type(text);
