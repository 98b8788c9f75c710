-- +goose Up
-- The document status rules (docs/drivers-and-documents.md) live in SQL so that the driver
-- list can compute documents_summary, is_ready and the document_status filter
-- for a whole page in one query; the documents package uses the same
-- function for single documents.

-- The current file of a document, kept by the upload transaction, so the
-- status needs only the document row.
ALTER TABLE driver_documents ADD COLUMN current_file_id uuid REFERENCES document_files (id);

-- +goose StatementBegin
CREATE FUNCTION konvoj_document_status(has_file boolean, valid_until date, today date)
RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN NOT has_file THEN 'no_data'
        WHEN valid_until IS NULL THEN 'valid'
        WHEN valid_until - today < 0 THEN 'expired'
        WHEN valid_until - today < 15 THEN 'expiring_soon'
        WHEN valid_until - today <= 30 THEN 'warning'
        ELSE 'valid'
    END
$$;
-- +goose StatementEnd

-- "Today" in a company's time zone.
-- +goose StatementBegin
CREATE FUNCTION konvoj_today(tz text) RETURNS date LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT (now() AT TIME ZONE tz)::date
$$;
-- +goose StatementEnd

-- The document types a driver needs to be ready: the company setting
-- settings.required_document_types, else the default set of docs/drivers-and-documents.md.
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

-- +goose Down
DROP FUNCTION konvoj_required_document_types(jsonb);
DROP FUNCTION konvoj_today(text);
DROP FUNCTION konvoj_document_status(boolean, date, date);
ALTER TABLE driver_documents DROP COLUMN current_file_id;
