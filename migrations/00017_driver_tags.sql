-- Drivers gain tags (requirement groups: a document rule required_for
-- 'tag:<tag>' applies to the drivers whose tags hold that tag) and a
-- language (the alerts e-mails; null: the company's).
-- docs/drivers-and-documents.md, "Requirement groups".

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION konvoj_valid_tags(tags text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT cardinality(tags) <= 20
        AND NOT EXISTS (SELECT 1 FROM unnest(tags) t WHERE t IS NULL OR t !~ '^[a-z0-9_-]{1,40}$')
$$;
-- +goose StatementEnd

ALTER TABLE drivers
    ADD COLUMN tags text[] NOT NULL DEFAULT '{}' CHECK (konvoj_valid_tags(tags)),
    ADD COLUMN language text CHECK (language IN ('cs', 'en', 'pl', 'uk', 'ro'));

-- The types a tag group adds for a driver with these tags: rule_for and
-- rule_types are the company's tag rules side by side (required_for
-- 'tag:<tag>' and its document type), read once per statement, so the
-- per-driver part is only this comparison.
-- +goose StatementBegin
CREATE FUNCTION konvoj_tagged_types(rule_for text[], rule_types text[], tags text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN cardinality(rule_for) = 0 OR cardinality(tags) = 0 THEN '{}'::text[]
        ELSE ARRAY(SELECT rule_types[i] FROM generate_subscripts(rule_for, 1) i WHERE substr(rule_for[i], 5) = ANY (tags))
    END
$$;
-- +goose StatementEnd

-- The types a driver of the company needs to be ready (the whole rule):
-- those required for all, for non_eu drivers when non_eu, and for the
-- tags the driver has.
-- +goose StatementBegin
CREATE FUNCTION konvoj_required_document_types(company uuid, non_eu boolean, tags text[]) RETURNS text[]
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(r.document_type ORDER BY r.ord), '{}')
    FROM konvoj_document_rules(company) r
    WHERE r.required AND (r.required_for = 'all' OR (non_eu AND r.required_for = 'non_eu')
        OR (r.required_for LIKE 'tag:%' AND substr(r.required_for, 5) = ANY (tags)))
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION konvoj_required_document_types(uuid, boolean, text[]);
DROP FUNCTION konvoj_tagged_types(text[], text[], text[]);
ALTER TABLE drivers DROP COLUMN language, DROP COLUMN tags;
DROP FUNCTION konvoj_valid_tags(text[]);
