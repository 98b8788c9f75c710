-- One display order of a company's document types for every query that
-- lists documents or types (docs/drivers-and-documents.md, "Custom document
-- types"): the 14 built-in types in their fixed order, then the company's
-- custom types oldest first (document_types.seq), retired ones among them
-- (where they show at all). konvoj_document_rules numbers its rows (ord) in
-- the same order; queries that order documents by type read this array
-- once per statement and rank by array_position.

-- +goose Up

-- +goose StatementBegin
CREATE FUNCTION konvoj_document_type_order(company uuid) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT ARRAY['passport', 'visa_biometrics', 'residence_permit', 'work_permit',
        'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance', 'travel_insurance',
        'drivers_license', 'adr_certificate', 'tachograph_card', 'code_95', 'medical_examination']
        || coalesce((SELECT array_agg(code ORDER BY seq) FROM document_types WHERE company_id = company), '{}')
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION konvoj_document_type_order(uuid);
