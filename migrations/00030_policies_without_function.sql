-- The row-level security policies compare company_id with the request's
-- company written out, NULLIF(current_setting('app.company_id', true), '')::uuid,
-- instead of calling konvoj_company_id() (docs/security.md, "Row-level
-- security").
--
-- The check is the same. The planner inlines a SQL function by parsing its
-- body again every time it plans a statement, once for every table the
-- statement reads; every statement is planned with its values
-- (plan_cache_mode = force_custom_plan), so a driver's read paid that many
-- parses on each request: replaying its statements as the request role
-- took 20-40 % longer than as the owner, and with the expression written
-- out 0-6 % longer.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_enable_tenant_rls(t regclass) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('DROP POLICY IF EXISTS tenant_isolation ON %s', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %s
        USING (company_id = NULLIF(current_setting(''app.company_id'', true), '''')::uuid)
        WITH CHECK (company_id = NULLIF(current_setting(''app.company_id'', true), '''')::uuid)', t);
END
$$;
-- +goose StatementEnd

-- Every table that has the policy on company_id gets it again.
SELECT konvoj_enable_tenant_rls(c.oid)
FROM pg_class c
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
    AND EXISTS (SELECT FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant_isolation');

DROP POLICY tenant_isolation ON companies;
CREATE POLICY tenant_isolation ON companies
    USING (id = NULLIF(current_setting('app.company_id', true), '')::uuid)
    WITH CHECK (id = NULLIF(current_setting('app.company_id', true), '')::uuid);

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_enable_tenant_rls(t regclass) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('DROP POLICY IF EXISTS tenant_isolation ON %s', t);
    EXECUTE format('CREATE POLICY tenant_isolation ON %s
        USING (company_id = konvoj_company_id()) WITH CHECK (company_id = konvoj_company_id())', t);
END
$$;
-- +goose StatementEnd
SELECT konvoj_enable_tenant_rls(c.oid)
FROM pg_class c
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
    AND EXISTS (SELECT FROM pg_policy p WHERE p.polrelid = c.oid AND p.polname = 'tenant_isolation');
DROP POLICY tenant_isolation ON companies;
CREATE POLICY tenant_isolation ON companies
    USING (id = konvoj_company_id()) WITH CHECK (id = konvoj_company_id());
