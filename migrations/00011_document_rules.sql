-- Document rules per company and document type (docs/alerts.md): whether the
-- type is required for readiness and for whom, how many days before
-- valid_until the first alert goes out, and whether a driver's upload waits
-- for review.
--
-- A company has a row only for a type whose rule it changed; the defaults
-- of the other types come from konvoj_document_rules, the one place that
-- holds them.

-- +goose Up
CREATE TABLE document_rules (
    company_id      uuid NOT NULL REFERENCES companies (id),
    document_type   text NOT NULL,
    required        boolean NOT NULL,
    required_for    text NOT NULL DEFAULT 'all'
                    CHECK (required_for IN ('all', 'non_eu') OR required_for ~ '^tag:[a-z0-9_-]{1,40}$'),
    lead_days       integer NOT NULL CHECK (lead_days BETWEEN 0 AND 730),
    requires_review boolean NOT NULL DEFAULT false,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, document_type)
);
SELECT konvoj_enable_tenant_rls('document_rules');

-- Every document type's rule for a company, in display order: the
-- company's row, else the default. Defaults: required for readiness are
-- passport, drivers_license, tachograph_card, code_95 and
-- medical_examination; lead days 90 for passport, the visa types,
-- residence_permit and work_permit, 60 for the A1 types, 30 for the rest.
-- +goose StatementBegin
CREATE FUNCTION konvoj_document_rules(company uuid)
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

-- Citizens of the EU, the EEA and Switzerland: a rule required_for
-- 'non_eu' does not apply to them. An unknown citizenship is not one of
-- them (the rule applies).
-- +goose StatementBegin
CREATE FUNCTION konvoj_eu_citizen(citizenship text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(upper(citizenship) = ANY (ARRAY[
        'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT', 'LV',
        'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'IS', 'LI', 'NO', 'CH']), false)
$$;
-- +goose StatementEnd

-- The company's settings.required_document_types (the earlier way to set
-- the required set) becomes rules, and the setting goes.
INSERT INTO document_rules (company_id, document_type, required, lead_days)
SELECT c.id, r.document_type, r.document_type = ANY (ARRAY(SELECT jsonb_array_elements_text(c.settings -> 'required_document_types'))), r.lead_days
FROM companies c CROSS JOIN LATERAL konvoj_document_rules(c.id) r
WHERE jsonb_typeof(c.settings -> 'required_document_types') = 'array';
UPDATE companies SET settings = settings - 'required_document_types' WHERE settings ? 'required_document_types';
DROP FUNCTION konvoj_required_document_types(jsonb);

-- The types a driver of the company needs to be ready: those required for
-- all drivers, and with non_eu also those required for drivers from
-- outside the EU, EEA and Switzerland. (Tags: drivers have none yet, so a
-- rule required_for 'tag:…' applies to nobody.)
-- +goose StatementBegin
CREATE FUNCTION konvoj_required_document_types(company uuid, non_eu boolean) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(r.document_type ORDER BY r.ord), '{}')
    FROM konvoj_document_rules(company) r
    WHERE r.required AND (r.required_for = 'all' OR (non_eu AND r.required_for = 'non_eu'))
$$;
-- +goose StatementEnd

-- Audit rows for rule changes.
ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check;
ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check CHECK (entity_type IN (
    'driver', 'document', 'document_file', 'finance_transaction', 'penalty',
    'finance_period', 'rating_config', 'company', 'user', 'office',
    'vehicle', 'trailer', 'transport_unit', 'order', 'document_rule'));

-- +goose Down
ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check;
ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check CHECK (entity_type IN (
    'driver', 'document', 'document_file', 'finance_transaction', 'penalty',
    'finance_period', 'rating_config', 'company', 'user', 'office',
    'vehicle', 'trailer', 'transport_unit', 'order'));
DROP FUNCTION konvoj_required_document_types(uuid, boolean);
-- +goose StatementBegin
CREATE FUNCTION konvoj_required_document_types(settings jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN jsonb_typeof(settings -> 'required_document_types') = 'array'
            THEN ARRAY(SELECT jsonb_array_elements_text(settings -> 'required_document_types'))
        ELSE ARRAY['passport', 'drivers_license', 'tachograph_card', 'code_95', 'medical_examination']
    END
$$;
-- +goose StatementEnd
DROP FUNCTION konvoj_eu_citizen(text);
DROP FUNCTION konvoj_document_rules(uuid);
DROP TABLE document_rules;
