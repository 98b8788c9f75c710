-- +goose Up
-- An offset page of the drivers list carries the total of the drivers it
-- pages through. Counted with the page (count(*) OVER ()), that read every
-- live driver of the company: on 20,000 drivers the unfiltered list spent
-- about two thirds of its time on the total, for a page of 20 rows
-- (docs/performance.md, "The drivers list's total"). Unfiltered, or
-- filtered by status alone, the total is a sum of these counts, and the page
-- reads only its own rows.
--
-- The rows are changes: the company's live drivers with the status are the
-- sum of live over its rows. A write of drivers only ever inserts rows here,
-- so it waits for no other writer and holds no lock another one needs; a
-- daily job (compact_driver_counts) folds each company's rows into one per
-- status.
CREATE TABLE driver_counts (
    company_id uuid NOT NULL REFERENCES companies (id),
    status     text NOT NULL,
    live       integer NOT NULL
);

CREATE INDEX driver_counts_company_status_idx ON driver_counts (company_id, status) INCLUDE (live);

SELECT konvoj_enable_tenant_rls('driver_counts');

-- konvoj_count_drivers keeps the sums of driver_counts equal to the live
-- drivers after every statement that writes drivers, whoever runs it (the
-- services, an import, the seeds): it adds one row per company and status
-- whose number of live drivers the statement changed, worked out from the
-- statement's changed rows. Most updates (a phone number) add nothing.
-- +goose StatementBegin
CREATE FUNCTION konvoj_count_drivers() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO driver_counts (company_id, status, live)
        SELECT company_id, status, count(*) FROM new_rows WHERE deleted_at IS NULL GROUP BY 1, 2;
    ELSIF TG_OP = 'UPDATE' THEN
        INSERT INTO driver_counts (company_id, status, live)
        SELECT company_id, status, sum(d) FROM (
            SELECT company_id, status, 1 AS d FROM new_rows WHERE deleted_at IS NULL
            UNION ALL
            SELECT company_id, status, -1 FROM old_rows WHERE deleted_at IS NULL
        ) r
        GROUP BY 1, 2 HAVING sum(d) <> 0;
    ELSE
        INSERT INTO driver_counts (company_id, status, live)
        SELECT company_id, status, -count(*) FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER drivers_count_insert AFTER INSERT ON drivers
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_count_drivers();
CREATE TRIGGER drivers_count_update AFTER UPDATE ON drivers
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_count_drivers();
CREATE TRIGGER drivers_count_delete AFTER DELETE ON drivers
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_count_drivers();
-- Also under session_replication_role = replica, which the scale seed uses
-- to load drivers: the counts must never miss one.
ALTER TABLE drivers ENABLE ALWAYS TRIGGER drivers_count_insert;
ALTER TABLE drivers ENABLE ALWAYS TRIGGER drivers_count_update;
ALTER TABLE drivers ENABLE ALWAYS TRIGGER drivers_count_delete;

-- The drivers stored so far.
INSERT INTO driver_counts (company_id, status, live)
SELECT company_id, status, count(*) FROM drivers WHERE deleted_at IS NULL GROUP BY 1, 2;

-- +goose Down
DROP TRIGGER IF EXISTS drivers_count_insert ON drivers;
DROP TRIGGER IF EXISTS drivers_count_update ON drivers;
DROP TRIGGER IF EXISTS drivers_count_delete ON drivers;
DROP FUNCTION IF EXISTS konvoj_count_drivers();
DROP TABLE IF EXISTS driver_counts;
