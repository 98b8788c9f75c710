-- Vehicles and trailers hold documents as drivers do (docs/fleet.md): one
-- documents table, one set of rules and types, one status rule.
--
-- driver_documents keeps its first name but now holds every holder's
-- documents: holder_type says whose, and exactly one of driver_id,
-- vehicle_id and trailer_id names the holder (holder_id repeats it for the
-- statements that read every holder's documents, such as the expiry list).
-- The drivers' machinery (effective statuses, driver_expiry, chains) reads
-- driver_id and so sees drivers' documents only.
--
-- Document rules and custom types gain holder_type (default driver): the
-- same type code has one rule per holder type.
--
-- The vehicles' technical_inspection_until, insurance_until and
-- tachograph_calibration_until and the trailers' technical_inspection_until
-- and insurance_until become the valid_until of those documents, once; the
-- columns go, so that the documents are the one source of truth.

-- +goose Up
ALTER TABLE driver_documents
    ADD COLUMN holder_type text NOT NULL DEFAULT 'driver' CHECK (holder_type IN ('driver', 'vehicle', 'trailer')),
    ADD COLUMN vehicle_id uuid,
    ADD COLUMN trailer_id uuid,
    ALTER COLUMN driver_id DROP NOT NULL,
    ADD COLUMN holder_id uuid GENERATED ALWAYS AS (coalesce(driver_id, vehicle_id, trailer_id)) STORED,
    ADD CONSTRAINT driver_documents_holder_check CHECK (CASE holder_type
        WHEN 'driver' THEN driver_id IS NOT NULL AND vehicle_id IS NULL AND trailer_id IS NULL
        WHEN 'vehicle' THEN vehicle_id IS NOT NULL AND driver_id IS NULL AND trailer_id IS NULL
        ELSE trailer_id IS NOT NULL AND driver_id IS NULL AND vehicle_id IS NULL END),
    ADD CONSTRAINT driver_documents_vehicle_type_key UNIQUE (vehicle_id, type),
    ADD CONSTRAINT driver_documents_trailer_type_key UNIQUE (trailer_id, type),
    ADD CONSTRAINT driver_documents_vehicle_fkey FOREIGN KEY (company_id, vehicle_id) REFERENCES vehicles (company_id, id),
    ADD CONSTRAINT driver_documents_trailer_fkey FOREIGN KEY (company_id, trailer_id) REFERENCES trailers (company_id, id);

-- The expiry list and the daily scan read the fleet's documents by holder.
CREATE INDEX driver_documents_company_holder_idx ON driver_documents (company_id, holder_type, valid_until)
    WHERE holder_type <> 'driver';

ALTER TABLE document_types
    ADD COLUMN holder_type text NOT NULL DEFAULT 'driver' CHECK (holder_type IN ('driver', 'vehicle', 'trailer'));

ALTER TABLE document_rules
    ADD COLUMN holder_type text NOT NULL DEFAULT 'driver' CHECK (holder_type IN ('driver', 'vehicle', 'trailer')),
    DROP CONSTRAINT document_rules_pkey,
    ADD PRIMARY KEY (company_id, holder_type, document_type);

-- Tags select tag: requirements for vehicles and trailers as for drivers.
ALTER TABLE vehicles ADD COLUMN tags text[] NOT NULL DEFAULT '{}' CHECK (konvoj_valid_tags(tags));
ALTER TABLE trailers ADD COLUMN tags text[] NOT NULL DEFAULT '{}' CHECK (konvoj_valid_tags(tags));

-- The built-in types of each holder type, in display order, with their
-- defaults: required (and for whom), lead days, whether a document of the
-- type has an expiry, and, for a vehicle, whether only a truck (lkv) has it.
-- +goose StatementBegin
CREATE FUNCTION konvoj_builtin_document_types(holder text)
RETURNS TABLE (type text, ord integer, required boolean, required_for text, lead_days integer, has_expiry boolean, lkv_only boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT b.type, b.ord, b.required, b.required_for, b.lead_days, b.has_expiry, b.lkv_only FROM (VALUES
        ('driver', 'passport', 1, true, 'all', 90, true, false),
        ('driver', 'visa_biometrics', 2, false, 'all', 90, true, false),
        ('driver', 'residence_permit', 3, false, 'all', 90, true, false),
        ('driver', 'work_permit', 4, false, 'all', 90, true, false),
        ('driver', 'a1_eu', 5, false, 'all', 60, true, false),
        ('driver', 'a1_switzerland', 6, false, 'all', 60, true, false),
        ('driver', 'declaration', 7, false, 'all', 30, true, false),
        ('driver', 'health_insurance', 8, false, 'all', 30, true, false),
        ('driver', 'travel_insurance', 9, false, 'all', 30, true, false),
        ('driver', 'drivers_license', 10, true, 'all', 30, true, false),
        ('driver', 'adr_certificate', 11, false, 'all', 30, true, false),
        ('driver', 'tachograph_card', 12, true, 'all', 30, true, false),
        ('driver', 'code_95', 13, true, 'all', 30, true, false),
        ('driver', 'medical_examination', 14, true, 'all', 30, true, false),
        ('vehicle', 'technical_inspection', 1, true, 'all', 30, true, false),
        ('vehicle', 'liability_insurance', 2, true, 'all', 30, true, false),
        ('vehicle', 'tachograph_calibration', 3, true, 'all', 60, true, true),
        ('vehicle', 'community_licence_copy', 4, true, 'all', 60, true, true),
        ('vehicle', 'adr_vehicle_certificate', 5, true, 'tag:adr', 30, true, false),
        ('vehicle', 'registration_certificate', 6, false, 'all', 30, false, false),
        ('trailer', 'technical_inspection', 1, true, 'all', 30, true, false),
        ('trailer', 'liability_insurance', 2, true, 'all', 30, true, false),
        ('trailer', 'adr_vehicle_certificate', 3, true, 'tag:adr', 30, true, false),
        ('trailer', 'atp_certificate', 4, true, 'tag:frigo', 60, true, false),
        ('trailer', 'registration_certificate', 5, false, 'all', 30, false, false)
    ) AS b(holder, type, ord, required, required_for, lead_days, has_expiry, lkv_only)
    WHERE b.holder = $1
    ORDER BY b.ord
$$;
-- +goose StatementEnd

-- Built-in codes of every holder type: no custom type may take one.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_builtin_document_type(code text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT code = ANY (ARRAY['passport', 'visa_biometrics', 'residence_permit', 'work_permit',
        'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance', 'travel_insurance',
        'drivers_license', 'adr_certificate', 'tachograph_card', 'code_95', 'medical_examination',
        'technical_inspection', 'liability_insurance', 'tachograph_calibration', 'community_licence_copy',
        'adr_vehicle_certificate', 'atp_certificate', 'registration_certificate'])
$$;
-- +goose StatementEnd

-- Every document type's rule for a company and holder type, in display
-- order: the built-in types, then the company's live custom types of that
-- holder type (defaults: not required, 30 lead days); a company's
-- document_rules row overrides. Called with the company alone it is the
-- drivers' rules, as before.
DROP FUNCTION konvoj_document_rules(uuid);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_rules(company uuid, holder text DEFAULT 'driver')
RETURNS TABLE (document_type text, ord integer, required boolean, required_for text, lead_days integer, requires_review boolean)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT t.type, t.ord, coalesce(r.required, t.required), coalesce(r.required_for, t.required_for),
        coalesce(r.lead_days, t.lead_days), coalesce(r.requires_review, false)
    FROM (
        SELECT b.type, b.ord, b.required, b.required_for, b.lead_days FROM konvoj_builtin_document_types(holder) b
        UNION ALL
        SELECT dt.code, ((SELECT count(*) FROM konvoj_builtin_document_types(holder)) + row_number() OVER (ORDER BY dt.seq))::integer,
            false, 'all', 30
        FROM document_types dt WHERE dt.company_id = company AND dt.holder_type = holder AND NOT dt.retired
    ) AS t(type, ord, required, required_for, lead_days)
    LEFT JOIN document_rules r ON r.company_id = company AND r.holder_type = holder AND r.document_type = t.type
    ORDER BY t.ord
$$;
-- +goose StatementEnd

-- Whether a vehicle or trailer of kind (its type: lkv, pkv, standard, …)
-- has documents of a type: a light vehicle (pkv) has no tachograph
-- calibration and no community licence copy.
-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_type_applies(holder text, kind text, type text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT NOT (holder = 'vehicle' AND kind IS DISTINCT FROM 'lkv'
        AND type IN ('tachograph_calibration', 'community_licence_copy'))
$$;
-- +goose StatementEnd

-- The types a vehicle or trailer of the company needs to be ready: those
-- required for all and for the tags it has, that apply to its kind.
-- +goose StatementBegin
CREATE FUNCTION konvoj_fleet_required_types(company uuid, holder text, kind text, tags text[]) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(r.document_type ORDER BY r.ord), '{}')
    FROM konvoj_document_rules(company, holder) r
    WHERE r.required AND konvoj_fleet_type_applies(holder, kind, r.document_type)
        AND (r.required_for = 'all' OR (r.required_for LIKE 'tag:%' AND substr(r.required_for, 5) = ANY (tags)))
$$;
-- +goose StatementEnd

-- The drivers' expiry rows are refreshed for drivers' documents only.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_documents_changed() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    r record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        FOR r IN SELECT company_id, array_agg(DISTINCT driver_id) AS ids FROM new_rows
            WHERE driver_id IS NOT NULL GROUP BY 1 LOOP
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
            ) x WHERE x.driver_id IS NOT NULL GROUP BY 1
        LOOP
            PERFORM konvoj_refresh_expiry(r.company_id, r.ids);
        END LOOP;
    ELSE
        FOR r IN SELECT company_id, array_agg(DISTINCT driver_id) AS ids FROM old_rows
            WHERE driver_id IS NOT NULL GROUP BY 1 LOOP
            PERFORM konvoj_refresh_expiry(r.company_id, r.ids);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- Every vehicle and trailer gets a record of each built-in type it has,
-- with the stored dates as valid_until.
INSERT INTO driver_documents (company_id, holder_type, vehicle_id, type, valid_until)
SELECT v.company_id, 'vehicle', v.id, b.type, CASE b.type
        WHEN 'technical_inspection' THEN v.technical_inspection_until
        WHEN 'liability_insurance' THEN v.insurance_until
        WHEN 'tachograph_calibration' THEN v.tachograph_calibration_until END
FROM vehicles v CROSS JOIN konvoj_builtin_document_types('vehicle') b
WHERE konvoj_fleet_type_applies('vehicle', v.type, b.type);

INSERT INTO driver_documents (company_id, holder_type, trailer_id, type, valid_until)
SELECT t.company_id, 'trailer', t.id, b.type, CASE b.type
        WHEN 'technical_inspection' THEN t.technical_inspection_until
        WHEN 'liability_insurance' THEN t.insurance_until END
FROM trailers t CROSS JOIN konvoj_builtin_document_types('trailer') b;

ALTER TABLE vehicles DROP COLUMN technical_inspection_until, DROP COLUMN insurance_until,
    DROP COLUMN tachograph_calibration_until;
ALTER TABLE trailers DROP COLUMN technical_inspection_until, DROP COLUMN insurance_until;

-- +goose Down
ALTER TABLE vehicles ADD COLUMN technical_inspection_until date, ADD COLUMN insurance_until date,
    ADD COLUMN tachograph_calibration_until date;
ALTER TABLE trailers ADD COLUMN technical_inspection_until date, ADD COLUMN insurance_until date;
UPDATE vehicles v SET
    technical_inspection_until = (SELECT d.valid_until FROM driver_documents d WHERE d.vehicle_id = v.id AND d.type = 'technical_inspection'),
    insurance_until = (SELECT d.valid_until FROM driver_documents d WHERE d.vehicle_id = v.id AND d.type = 'liability_insurance'),
    tachograph_calibration_until = (SELECT d.valid_until FROM driver_documents d WHERE d.vehicle_id = v.id AND d.type = 'tachograph_calibration');
UPDATE trailers t SET
    technical_inspection_until = (SELECT d.valid_until FROM driver_documents d WHERE d.trailer_id = t.id AND d.type = 'technical_inspection'),
    insurance_until = (SELECT d.valid_until FROM driver_documents d WHERE d.trailer_id = t.id AND d.type = 'liability_insurance');
UPDATE driver_documents SET current_file_id = NULL WHERE holder_type <> 'driver';
DELETE FROM document_files f USING driver_documents d WHERE d.id = f.document_id AND d.holder_type <> 'driver';
DELETE FROM driver_documents WHERE holder_type <> 'driver';
DELETE FROM document_rules WHERE holder_type <> 'driver';
DELETE FROM document_types WHERE holder_type <> 'driver';
DROP FUNCTION konvoj_fleet_required_types(uuid, text, text, text[]);
DROP FUNCTION konvoj_fleet_type_applies(text, text, text);
DROP FUNCTION konvoj_document_rules(uuid, text);
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_rules(company uuid)
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
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_builtin_document_type(code text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT code = ANY (ARRAY['passport', 'visa_biometrics', 'residence_permit', 'work_permit',
        'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance', 'travel_insurance',
        'drivers_license', 'adr_certificate', 'tachograph_card', 'code_95', 'medical_examination'])
$$;
-- +goose StatementEnd
DROP FUNCTION konvoj_builtin_document_types(text);
ALTER TABLE vehicles DROP COLUMN tags;
ALTER TABLE trailers DROP COLUMN tags;
ALTER TABLE document_rules DROP CONSTRAINT document_rules_pkey, DROP COLUMN holder_type, ADD PRIMARY KEY (company_id, document_type);
ALTER TABLE document_types DROP COLUMN holder_type;
DROP INDEX driver_documents_company_holder_idx;
ALTER TABLE driver_documents DROP COLUMN holder_id, DROP COLUMN vehicle_id, DROP COLUMN trailer_id, DROP COLUMN holder_type,
    ALTER COLUMN driver_id SET NOT NULL;
