-- A driver's documents' statuses, read from the index alone and, where the
-- caller needs only some types, for those types only (docs/performance.md,
-- "Custom document types in the drivers list").
--
-- The document_status filter works the validity chains out for every
-- driver who has a chained document with the status asked: on a
-- 2,000-driver company with a custom type capped by the residence permit,
-- 86 drivers, each of whose 17 documents were fetched from the heap (20
-- buffers a driver), although only the 4 chained types matter there. The
-- function now takes the types to read (NULL: all), and the index below
-- carries what it reads, so a driver's documents are one index leaf.

-- +goose Up
CREATE INDEX driver_documents_driver_status_idx ON driver_documents (company_id, driver_id, type)
    INCLUDE (id, current_file_id, valid_until);

DROP FUNCTION konvoj_document_statuses(uuid, uuid, date, jsonb, text[]);
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

-- +goose Down
DROP FUNCTION konvoj_document_statuses(uuid, uuid, date, jsonb, text[], text[]);
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
DROP INDEX driver_documents_driver_status_idx;
