-- +goose Up
-- The current month's stored rating snapshots are refreshed by a background
-- job shortly after a change that affects them (docs/rating.md). Every
-- statement that changes a rating input marks its company here, in the
-- statement's own transaction; the first mark sets when the refresh is due
-- (30 s later) and later marks before that refresh leave it alone, so a burst
-- of changes causes one refresh. A job claims the due rows (deleting them) and
-- enqueues one refresh per company. No foreign key: a mark must never stop a
-- company from being deleted; the claim ignores companies that are gone.
CREATE TABLE rating_refresh_due (
    company_id uuid PRIMARY KEY,
    due_at timestamptz NOT NULL
);
CREATE INDEX rating_refresh_due_at ON rating_refresh_due (due_at);
SELECT konvoj_enable_tenant_rls('rating_refresh_due');

-- Statement-level triggers: one insert per statement whatever the number of
-- rows it changed (a bulk import marks its company once). Runs as the owner,
-- so it needs no grant or policy of the request role; it writes only the
-- companies of the rows the statement changed.
-- +goose StatementBegin
CREATE FUNCTION konvoj_rating_inputs_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    INSERT INTO rating_refresh_due (company_id, due_at)
    SELECT DISTINCT company_id, now() + interval '30 seconds' FROM changed WHERE company_id IS NOT NULL
    ON CONFLICT (company_id) DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- A company's settings name its required document types, and its time zone
-- its month.
-- +goose StatementBegin
CREATE FUNCTION konvoj_rating_company_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    INSERT INTO rating_refresh_due (company_id, due_at)
    VALUES (NEW.id, now() + interval '30 seconds')
    ON CONFLICT (company_id) DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['drivers', 'driver_documents', 'document_files', 'penalties', 'orders', 'rating_configs', 'document_rules'] LOOP
        EXECUTE format('CREATE TRIGGER rating_inputs_inserted AFTER INSERT ON %I
            REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION konvoj_rating_inputs_changed()', t);
        EXECUTE format('CREATE TRIGGER rating_inputs_updated AFTER UPDATE ON %I
            REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION konvoj_rating_inputs_changed()', t);
        EXECUTE format('CREATE TRIGGER rating_inputs_deleted AFTER DELETE ON %I
            REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION konvoj_rating_inputs_changed()', t);
    END LOOP;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER rating_company_changed AFTER UPDATE ON companies
    FOR EACH ROW WHEN (OLD.settings IS DISTINCT FROM NEW.settings OR OLD.timezone IS DISTINCT FROM NEW.timezone)
    EXECUTE FUNCTION konvoj_rating_company_changed();

-- +goose Down
DROP TRIGGER IF EXISTS rating_company_changed ON companies;
-- +goose StatementBegin
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['drivers', 'driver_documents', 'document_files', 'penalties', 'orders', 'rating_configs', 'document_rules'] LOOP
        EXECUTE format('DROP TRIGGER IF EXISTS rating_inputs_inserted ON %I', t);
        EXECUTE format('DROP TRIGGER IF EXISTS rating_inputs_updated ON %I', t);
        EXECUTE format('DROP TRIGGER IF EXISTS rating_inputs_deleted ON %I', t);
    END LOOP;
END
$$;
-- +goose StatementEnd
DROP FUNCTION IF EXISTS konvoj_rating_company_changed();
DROP FUNCTION IF EXISTS konvoj_rating_inputs_changed();
DROP TABLE IF EXISTS rating_refresh_due;
