-- konvoj_refresh_expiry's second statement read a driver's rows of
-- document_effective by driver and company. Planned while the table had no
-- statistics (a new database, or one whose first company is loaded in one
-- transaction, as the scale seed does), it crossed the driver's entries with
-- every entry of the company (a BitmapAnd of the two indexes), once per
-- driver: on a 20,000-driver company 31 ms a driver, ten minutes for the
-- statement that inserts their documents and as long again for the one that
-- gives them files (docs/performance.md, "Seeding the scale set"). A
-- driver's rows are written only by this function, with the driver's own
-- company, so the driver alone finds them, on the one index whose leaf
-- holds them all (document_effective_driver_idx), whatever the statistics.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_refresh_expiry(company uuid, drivers uuid[], lock_drivers boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    f company_document_facts;
BEGIN
    SELECT * INTO f FROM company_document_facts WHERE company_id = company FOR KEY SHARE;
    IF lock_drivers THEN
        PERFORM 1 FROM document_effective x
        WHERE x.company_id = company AND x.driver_id = ANY (drivers)
        ORDER BY x.document_id
        FOR NO KEY UPDATE;
    END IF;
    WITH computed AS (
        SELECT d.id AS driver_id, e.id, e.type, e.has_file, e.until
        FROM drivers d
        CROSS JOIN LATERAL konvoj_effective_until(company, d.id, f.chains, f.retired) e
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM document_effective x
        WHERE x.company_id = company AND x.driver_id = ANY (drivers)
            AND NOT EXISTS (SELECT 1 FROM computed k WHERE k.id = x.document_id)
    )
    INSERT INTO document_effective AS x (document_id, company_id, driver_id, type, has_file, until)
    SELECT k.id, company, k.driver_id, k.type, k.has_file, k.until FROM computed k
    ORDER BY k.id
    ON CONFLICT (document_id) DO UPDATE SET company_id = EXCLUDED.company_id, driver_id = EXCLUDED.driver_id,
        type = EXCLUDED.type, has_file = EXCLUDED.has_file, until = EXCLUDED.until
        WHERE (x.company_id, x.driver_id, x.type, x.has_file, x.until)
            IS DISTINCT FROM (EXCLUDED.company_id, EXCLUDED.driver_id, EXCLUDED.type, EXCLUDED.has_file, EXCLUDED.until);

    WITH computed AS (
        SELECT d.id, (SELECT min(x.until) + 1 FROM document_effective x
            WHERE x.driver_id = d.id AND x.has_file) AS expired_from
        FROM drivers d
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM driver_expiry e USING computed k
        WHERE e.driver_id = k.id AND k.expired_from IS NULL
    )
    INSERT INTO driver_expiry AS e (driver_id, company_id, expired_from)
    SELECT k.id, company, k.expired_from FROM computed k
    WHERE k.expired_from IS NOT NULL
    ORDER BY k.id
    ON CONFLICT (driver_id) DO UPDATE SET expired_from = EXCLUDED.expired_from
        WHERE e.expired_from <> EXCLUDED.expired_from;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_refresh_expiry(company uuid, drivers uuid[], lock_drivers boolean DEFAULT true) RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    f company_document_facts;
BEGIN
    SELECT * INTO f FROM company_document_facts WHERE company_id = company FOR KEY SHARE;
    IF lock_drivers THEN
        PERFORM 1 FROM document_effective x
        WHERE x.company_id = company AND x.driver_id = ANY (drivers)
        ORDER BY x.document_id
        FOR NO KEY UPDATE;
    END IF;
    WITH computed AS (
        SELECT d.id AS driver_id, e.id, e.type, e.has_file, e.until
        FROM drivers d
        CROSS JOIN LATERAL konvoj_effective_until(company, d.id, f.chains, f.retired) e
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM document_effective x
        WHERE x.company_id = company AND x.driver_id = ANY (drivers)
            AND NOT EXISTS (SELECT 1 FROM computed k WHERE k.id = x.document_id)
    )
    INSERT INTO document_effective AS x (document_id, company_id, driver_id, type, has_file, until)
    SELECT k.id, company, k.driver_id, k.type, k.has_file, k.until FROM computed k
    ORDER BY k.id
    ON CONFLICT (document_id) DO UPDATE SET company_id = EXCLUDED.company_id, driver_id = EXCLUDED.driver_id,
        type = EXCLUDED.type, has_file = EXCLUDED.has_file, until = EXCLUDED.until
        WHERE (x.company_id, x.driver_id, x.type, x.has_file, x.until)
            IS DISTINCT FROM (EXCLUDED.company_id, EXCLUDED.driver_id, EXCLUDED.type, EXCLUDED.has_file, EXCLUDED.until);

    WITH computed AS (
        SELECT d.id, (SELECT min(x.until) + 1 FROM document_effective x
            WHERE x.driver_id = d.id AND x.company_id = company AND x.has_file) AS expired_from
        FROM drivers d
        WHERE d.company_id = company AND d.id = ANY (drivers)
    ), gone AS (
        DELETE FROM driver_expiry e USING computed k
        WHERE e.driver_id = k.id AND k.expired_from IS NULL
    )
    INSERT INTO driver_expiry AS e (driver_id, company_id, expired_from)
    SELECT k.id, company, k.expired_from FROM computed k
    WHERE k.expired_from IS NOT NULL
    ORDER BY k.id
    ON CONFLICT (driver_id) DO UPDATE SET expired_from = EXCLUDED.expired_from
        WHERE e.expired_from <> EXCLUDED.expired_from;
END
$$;
-- +goose StatementEnd
