-- +goose Up
-- An offset page of the drivers list carries the total of the drivers it
-- pages through. Counted with the page (count(*) OVER ()), that read every
-- live driver of the company: on 20,000 drivers the unfiltered list spent
-- about two thirds of its time on the total, for a page of 20 rows
-- (docs/performance.md, "The drivers list's total"). Unfiltered, or
-- filtered by status alone, the total is a sum of these counts, and the page
-- reads only its own rows.
--
-- live is the number of the company's drivers with the status that are not
-- deleted. A row may be 0; a missing row means 0.
CREATE TABLE driver_counts (
    company_id uuid NOT NULL REFERENCES companies (id),
    status     text NOT NULL,
    live       integer NOT NULL,
    PRIMARY KEY (company_id, status)
);

SELECT konvoj_enable_tenant_rls('driver_counts');

-- konvoj_count_drivers keeps driver_counts equal to the live drivers after
-- every statement that writes drivers, whoever runs it (the services, an
-- import, the seeds). It adds each statement's changes, worked out from its
-- changed rows per company and status, to the stored counts: added, not
-- recomputed, so that concurrent writers of one company never lose a
-- change. The rows are written in key order, so that two statements that
-- change the same counts take their locks in the same order.
-- +goose StatementBegin
CREATE FUNCTION konvoj_count_drivers() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO driver_counts AS t (company_id, status, live)
        SELECT company_id, status, count(*) FROM new_rows WHERE deleted_at IS NULL
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (company_id, status) DO UPDATE SET live = t.live + EXCLUDED.live;
    ELSIF TG_OP = 'UPDATE' THEN
        -- The new rows' live drivers count +1, the old rows' -1; most
        -- updates (a phone number) change nothing here.
        INSERT INTO driver_counts AS t (company_id, status, live)
        SELECT company_id, status, sum(d) FROM (
            SELECT company_id, status, 1 AS d FROM new_rows WHERE deleted_at IS NULL
            UNION ALL
            SELECT company_id, status, -1 FROM old_rows WHERE deleted_at IS NULL
        ) r
        GROUP BY 1, 2 HAVING sum(d) <> 0 ORDER BY 1, 2
        -- A negative change always meets its row (the driver it takes away
        -- was counted), so it is never inserted as it stands.
        ON CONFLICT (company_id, status) DO UPDATE SET live = t.live + EXCLUDED.live;
    ELSE
        UPDATE driver_counts t SET live = t.live - x.n
        FROM (SELECT company_id, status, count(*) AS n FROM old_rows WHERE deleted_at IS NULL GROUP BY 1, 2) x
        WHERE t.company_id = x.company_id AND t.status = x.status;
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
