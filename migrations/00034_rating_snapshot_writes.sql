-- +goose Up
-- Writing a company's month of ratings (docs/performance.md, "Rating a
-- month").
--
-- The component rows' digest: rating a month again mostly rewrites what
-- the current month's refresh stored, and the rating service compares the
-- digest of the rows it would write with the stored one and writes the rows
-- of the snapshots whose digest differs only. NULL (rows written before, or
-- by the seeds) never matches, so those rows are written.
ALTER TABLE rating_snapshots ADD COLUMN component_rows_digest text;

-- The weakest component (migration 00025) was picked by a query over
-- jsonb_each, sorted, run for every snapshot written, twice for an upsert
-- that updates (the insert's trigger fires before the conflict is found):
-- 50 ms of rating a 2,000-driver company's month (docs/performance.md,
-- "Rating a month"). The same choice is now made by a loop over the six
-- metrics in display order, whose expressions PL/pgSQL evaluates without
-- starting a query, and an update recomputes it only when the components
-- changed.
--
-- The rule is unchanged: the applicable component with the lowest score; on
-- a tie the heavier one, then the first in display order (rating.Metrics).
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_rating_weakest() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
DECLARE
    metric text;
    c jsonb;
    score numeric;
    weight numeric;
    weakest_weight numeric;
BEGIN
    NEW.weakest_metric := NULL;
    NEW.weakest_score := NULL;
    FOREACH metric IN ARRAY ARRAY['document_expiration', 'penalties_count', 'penalties_amount',
            'profile_completeness', 'document_upload_timeliness', 'activity'] LOOP
        c := NEW.components -> metric;
        CONTINUE WHEN c IS NULL OR NOT coalesce((c ->> 'applicable')::boolean, false);
        score := (c ->> 'score')::numeric;
        weight := (c ->> 'weight')::numeric;
        IF NEW.weakest_metric IS NULL OR score < NEW.weakest_score
                OR (score = NEW.weakest_score AND weight > weakest_weight) THEN
            NEW.weakest_metric := metric;
            NEW.weakest_score := score;
            weakest_weight := weight;
        END IF;
    END LOOP;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

DROP TRIGGER rating_snapshots_weakest ON rating_snapshots;
CREATE TRIGGER rating_snapshots_weakest_insert BEFORE INSERT ON rating_snapshots
    FOR EACH ROW EXECUTE FUNCTION konvoj_rating_weakest();
CREATE TRIGGER rating_snapshots_weakest_update BEFORE UPDATE OF components ON rating_snapshots
    FOR EACH ROW WHEN (OLD.components IS DISTINCT FROM NEW.components) EXECUTE FUNCTION konvoj_rating_weakest();

-- +goose Down
ALTER TABLE rating_snapshots DROP COLUMN IF EXISTS component_rows_digest;
DROP TRIGGER IF EXISTS rating_snapshots_weakest_insert ON rating_snapshots;
DROP TRIGGER IF EXISTS rating_snapshots_weakest_update ON rating_snapshots;
CREATE TRIGGER rating_snapshots_weakest BEFORE INSERT OR UPDATE OF components ON rating_snapshots
    FOR EACH ROW EXECUTE FUNCTION konvoj_rating_weakest();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_rating_weakest() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, public
AS $$
BEGIN
    SELECT c.key, (c.value->>'score')::numeric
    INTO NEW.weakest_metric, NEW.weakest_score
    FROM jsonb_each(NEW.components) c
    WHERE (c.value->>'applicable')::boolean
    ORDER BY (c.value->>'score')::numeric, (c.value->>'weight')::numeric DESC,
        array_position(ARRAY['document_expiration', 'penalties_count', 'penalties_amount',
            'profile_completeness', 'document_upload_timeliness', 'activity'], c.key)
    LIMIT 1;
    IF NOT FOUND THEN
        NEW.weakest_metric := NULL;
        NEW.weakest_score := NULL;
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd
