-- +goose Up
-- The current month's rating ranks a driver's live score among the month's
-- stored snapshots (docs/rating.md, "Reading and recalculating"). Counting
-- them on every read visited all 18,000 snapshots of a 20,000-driver
-- company's month: 24 ms, and about 100 ms after the background refresh had
-- rewritten the month, for an index-only scan then visits every row version
-- (docs/performance.md). The counts are now kept per company and month, so
-- the read looks up two numbers.
--
-- at_or_below[c + 1] is the number of the month's snapshots with
-- total_score <= c / 100, for c = 0 .. 10000 (scores have 2 decimals), so
-- at_or_below[10001] is the number of snapshots. Every snapshot counts,
-- deleted drivers' too: the read subtracts those of the company's deleted
-- drivers, whose deletion then needs no bookkeeping here.
CREATE TABLE rating_score_counts (
    company_id    uuid NOT NULL REFERENCES companies (id),
    rating_period date NOT NULL,
    at_or_below   integer[] NOT NULL CHECK (cardinality(at_or_below) = 10001),
    PRIMARY KEY (company_id, rating_period)
);

SELECT konvoj_enable_tenant_rls('rating_score_counts');

-- The read finds the company's deleted drivers (usually none or a few)
-- without visiting the live ones.
CREATE INDEX drivers_company_deleted_idx ON drivers (company_id, id) WHERE deleted_at IS NOT NULL;

-- konvoj_add_rating_scores adds added[i] snapshots with the score cents[i] / 100
-- (negative: removes them) to a company's month. Added, not recomputed:
-- the upsert locks the row and adds to its newest version, so concurrent
-- writers of one month (the rating service serialises them, other writers
-- such as the seeds need not) never lose a change.
-- +goose StatementBegin
CREATE FUNCTION konvoj_add_rating_scores(company uuid, period date, cents integer[], added integer[]) RETURNS void
LANGUAGE sql
SET search_path = pg_catalog, public
AS $$
    INSERT INTO rating_score_counts AS t (company_id, rating_period, at_or_below)
    SELECT company, period, array_agg(d.at_or_below ORDER BY d.c)
    FROM (
        SELECT g.c, (sum(coalesce(x.n, 0)) OVER (ORDER BY g.c))::integer AS at_or_below
        FROM generate_series(0, 10000) AS g(c)
        LEFT JOIN (SELECT u.c, sum(u.n) AS n FROM unnest(cents, added) AS u(c, n) GROUP BY u.c) x ON x.c = g.c
    ) d
    ON CONFLICT (company_id, rating_period) DO UPDATE SET at_or_below = (
        SELECT array_agg(a.old + a.added ORDER BY a.i)
        FROM unnest(t.at_or_below, EXCLUDED.at_or_below) WITH ORDINALITY AS a(old, added, i))
$$;
-- +goose StatementEnd

-- konvoj_count_rating_scores keeps rating_score_counts equal to the
-- snapshots after every statement that writes them, whoever runs it (the
-- rating service, the background refresh, the seeds). It works from the
-- statement's changed rows, per company and month; a statement that changes
-- no score (the percentiles, previous_score) changes nothing.
-- +goose StatementBegin
CREATE FUNCTION konvoj_count_rating_scores() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    m record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        FOR m IN
            SELECT x.company_id, x.rating_period, array_agg(x.c) AS cents, array_agg(x.n) AS n
            FROM (SELECT company_id, rating_period, (total_score * 100)::integer AS c, count(*)::integer AS n
                FROM new_rows GROUP BY 1, 2, 3) x
            GROUP BY 1, 2
        LOOP
            PERFORM konvoj_add_rating_scores(m.company_id, m.rating_period, m.cents, m.n);
        END LOOP;
    ELSIF TG_OP = 'UPDATE' THEN
        FOR m IN
            SELECT x.company_id, x.rating_period, array_agg(x.c) AS cents, array_agg(x.n) AS n
            FROM (
                SELECT company_id, rating_period, (total_score * 100)::integer AS c, sum(d)::integer AS n
                FROM (SELECT company_id, rating_period, total_score, 1 AS d FROM new_rows
                    UNION ALL SELECT company_id, rating_period, total_score, -1 FROM old_rows) r
                GROUP BY 1, 2, 3
                HAVING sum(d) <> 0
            ) x
            GROUP BY 1, 2
        LOOP
            PERFORM konvoj_add_rating_scores(m.company_id, m.rating_period, m.cents, m.n);
        END LOOP;
    ELSE
        FOR m IN
            SELECT x.company_id, x.rating_period, array_agg(x.c) AS cents, array_agg(x.n) AS n
            FROM (SELECT company_id, rating_period, (total_score * 100)::integer AS c, -count(*)::integer AS n
                FROM old_rows GROUP BY 1, 2, 3) x
            GROUP BY 1, 2
        LOOP
            PERFORM konvoj_add_rating_scores(m.company_id, m.rating_period, m.cents, m.n);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER rating_snapshots_count_insert AFTER INSERT ON rating_snapshots
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_count_rating_scores();
CREATE TRIGGER rating_snapshots_count_update AFTER UPDATE ON rating_snapshots
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_count_rating_scores();
CREATE TRIGGER rating_snapshots_count_delete AFTER DELETE ON rating_snapshots
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION konvoj_count_rating_scores();
-- Also under session_replication_role = replica, which the scale seed uses
-- to load snapshots without foreign key checks: the counts must never miss
-- a snapshot.
ALTER TABLE rating_snapshots ENABLE ALWAYS TRIGGER rating_snapshots_count_insert;
ALTER TABLE rating_snapshots ENABLE ALWAYS TRIGGER rating_snapshots_count_update;
ALTER TABLE rating_snapshots ENABLE ALWAYS TRIGGER rating_snapshots_count_delete;

-- The snapshots stored so far.
SELECT konvoj_add_rating_scores(x.company_id, x.rating_period, array_agg(x.c), array_agg(x.n))
FROM (SELECT company_id, rating_period, (total_score * 100)::integer AS c, count(*)::integer AS n
    FROM rating_snapshots GROUP BY 1, 2, 3) x
GROUP BY x.company_id, x.rating_period;

-- +goose Down
DROP TRIGGER IF EXISTS rating_snapshots_count_insert ON rating_snapshots;
DROP TRIGGER IF EXISTS rating_snapshots_count_update ON rating_snapshots;
DROP TRIGGER IF EXISTS rating_snapshots_count_delete ON rating_snapshots;
DROP FUNCTION IF EXISTS konvoj_count_rating_scores();
DROP FUNCTION IF EXISTS konvoj_add_rating_scores(uuid, date, integer[], integer[]);
DROP INDEX IF EXISTS drivers_company_deleted_idx;
DROP TABLE IF EXISTS rating_score_counts;
