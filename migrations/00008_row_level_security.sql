-- Row-level security: the second wall behind the services' tenancy checks
-- (docs/security.md, "Row-level security").
--
-- Migrations, background jobs and operator commands run as the user of
-- DATABASE_URL, who owns the tables and so is not subject to the policies.
-- The server's requests run as konvoj_app: it owns nothing, cannot bypass
-- row-level security, and sees only the rows of the company named by the
-- setting app.company_id of its session (set by the request pool from the
-- request's company). With the setting unset or empty it sees no row at all.
--
-- A new table with a company_id column must call
--     SELECT konvoj_enable_tenant_rls('the_table');
-- in its migration; a test fails for any tenant table without a policy.

-- +goose Up

-- The role is shared by every database of the cluster, and several of them
-- (or several instances) may migrate at the same moment: the loser of a
-- race to create it or to grant it just finds it done. The migrating user
-- needs CREATEROLE for this, unless the operator created the role and made
-- that user a member beforehand (docs/operations.md).
-- +goose StatementBegin
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'konvoj_app') THEN
        BEGIN
            CREATE ROLE konvoj_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
    -- The server connects as the migrating user and switches to konvoj_app
    -- (the role connection parameter), which needs membership.
    IF NOT pg_has_role(current_user, 'konvoj_app', 'MEMBER') THEN
        BEGIN
            EXECUTE format('GRANT konvoj_app TO %I', current_user);
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
    IF NOT has_schema_privilege('konvoj_app', 'public', 'USAGE') THEN
        GRANT USAGE ON SCHEMA public TO konvoj_app;
    END IF;
END
$$;
-- +goose StatementEnd

-- Plain DML on the tables (row-level security narrows it to one company),
-- now and for tables created later by the same owner (River's job tables
-- among them, so a request may enqueue a job in its own transaction). The
-- migration bookkeeping is none of its business.
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO konvoj_app;
GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO konvoj_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO konvoj_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO konvoj_app;
REVOKE ALL ON goose_db_version FROM konvoj_app;
-- Its id sequence by lookup: its name is goose's business.
-- +goose StatementBegin
DO $$
DECLARE
    seq text := pg_get_serial_sequence('goose_db_version', 'id');
BEGIN
    IF seq IS NOT NULL THEN
        EXECUTE format('REVOKE ALL ON SEQUENCE %s FROM konvoj_app', seq);
    END IF;
END
$$;
-- +goose StatementEnd

-- The request's company, NULL when none is set (so that no row matches).
-- A plain SQL function the planner inlines: the policy costs one
-- comparison the indexes leading with company_id already serve.
CREATE FUNCTION konvoj_company_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT NULLIF(current_setting('app.company_id', true), '')::uuid $$;

-- +goose StatementBegin
CREATE FUNCTION konvoj_enable_tenant_rls(t regclass) RETURNS void
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

-- Every table with a company_id column.
SELECT konvoj_enable_tenant_rls(c.oid)
FROM pg_class c
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p');

-- The companies themselves: only the request's own.
ALTER TABLE companies ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON companies
    USING (id = konvoj_company_id()) WITH CHECK (id = konvoj_company_id());

-- A rating component belongs to its snapshot (which has company_id): it is
-- visible when its snapshot is.
ALTER TABLE rating_components ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON rating_components
    USING (EXISTS (SELECT FROM rating_snapshots s WHERE s.id = snapshot_id))
    WITH CHECK (EXISTS (SELECT FROM rating_snapshots s WHERE s.id = snapshot_id));

-- The one question a request may ask about a row of another company: which
-- company owns the live (not soft-deleted) row with this id. The check order
-- answers 404 for a record that does not exist but 403 for another
-- company's, and under the policies the two look alike. It returns the
-- company id and nothing else, runs as the owner (past the policies) and may
-- be called only by konvoj_app and the owner.
-- +goose StatementBegin
CREATE FUNCTION konvoj_row_company(t regclass, row_id uuid) RETURNS uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
DECLARE
    owner_company uuid;
    live text := '';
BEGIN
    IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = t AND attname = 'deleted_at' AND NOT attisdropped) THEN
        live := ' AND deleted_at IS NULL';
    END IF;
    IF t = 'companies'::regclass THEN
        EXECUTE 'SELECT id FROM companies WHERE id = $1' INTO owner_company USING row_id;
    ELSE
        EXECUTE format('SELECT company_id FROM %s WHERE id = $1%s', t, live) INTO owner_company USING row_id;
    END IF;
    RETURN owner_company;
END
$$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION konvoj_row_company(regclass, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION konvoj_row_company(regclass, uuid) TO konvoj_app;

-- +goose Down

DROP FUNCTION IF EXISTS konvoj_row_company(regclass, uuid);
DROP POLICY IF EXISTS tenant_isolation ON rating_components;
ALTER TABLE rating_components DISABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS tenant_isolation ON companies;
ALTER TABLE companies DISABLE ROW LEVEL SECURITY;
-- +goose StatementBegin
DO $$
DECLARE
    t regclass;
BEGIN
    FOR t IN SELECT c.oid FROM pg_class c
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'company_id' AND NOT a.attisdropped
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
    LOOP
        EXECUTE format('DROP POLICY IF EXISTS tenant_isolation ON %s', t);
        EXECUTE format('ALTER TABLE %s DISABLE ROW LEVEL SECURITY', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION IF EXISTS konvoj_enable_tenant_rls(regclass);
DROP FUNCTION IF EXISTS konvoj_company_id();
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE USAGE, SELECT, UPDATE ON SEQUENCES FROM konvoj_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE SELECT, INSERT, UPDATE, DELETE ON TABLES FROM konvoj_app;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM konvoj_app;
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM konvoj_app;
