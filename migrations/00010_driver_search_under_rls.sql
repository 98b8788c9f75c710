-- +goose Up
-- The driver list's search under row-level security. Request queries run
-- as konvoj_app under the tenant_isolation policies, and PostgreSQL applies
-- a policy before any condition whose operator is not leakproof, so
-- `search_text LIKE '%word%'` cannot use the trigram index there: the list
-- read every row of the company instead. This function runs the search as
-- the owner (past the policies), where the trigram index serves it; it
-- returns ids only, of the company named, which for a request must be the
-- request's own (konvoj_company_id(), as the policies check).
-- +goose StatementBegin
CREATE FUNCTION konvoj_driver_search(company uuid, word text) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 100
SET search_path = pg_catalog, public
AS $$
BEGIN
    -- A request (role konvoj_app) sees its own company only, as under the
    -- policies; the owner's sessions (jobs, commands) name the company.
    IF current_setting('role') = 'konvoj_app' AND company IS DISTINCT FROM konvoj_company_id() THEN
        RETURN;
    END IF;
    RETURN QUERY
        SELECT d.id FROM drivers d
        WHERE d.company_id = company AND d.deleted_at IS NULL
            AND d.search_text LIKE '%' || konvoj_unaccent(lower(word)) || '%';
END
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION konvoj_driver_search(uuid, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION konvoj_driver_search(uuid, text) TO konvoj_app;

-- +goose Down
DROP FUNCTION IF EXISTS konvoj_driver_search(uuid, text);
