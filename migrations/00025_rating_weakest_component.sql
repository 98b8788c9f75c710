-- +goose Up
-- The ranking page shows each driver's weakest component (docs/rating.md,
-- "Pages"). Picking it from the components object of 2,000 snapshots on
-- every view cost most of the page's query; it is now kept on the snapshot,
-- set by a trigger whenever the components are written, whoever writes them
-- (the rating service, the background refresh, the seeds).
ALTER TABLE rating_snapshots
    ADD COLUMN weakest_metric text,
    ADD COLUMN weakest_score numeric(5,2);

-- The weakest is the applicable component with the lowest score; on a tie
-- the heavier one, then the first in display order (the order of
-- rating.Metrics in Go, which the ranking also uses).
-- +goose StatementBegin
CREATE FUNCTION konvoj_rating_weakest() RETURNS trigger
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

CREATE TRIGGER rating_snapshots_weakest BEFORE INSERT OR UPDATE OF components ON rating_snapshots
    FOR EACH ROW EXECUTE FUNCTION konvoj_rating_weakest();

UPDATE rating_snapshots SET components = components;

-- +goose Down
DROP TRIGGER IF EXISTS rating_snapshots_weakest ON rating_snapshots;
DROP FUNCTION IF EXISTS konvoj_rating_weakest();
ALTER TABLE rating_snapshots DROP COLUMN IF EXISTS weakest_metric, DROP COLUMN IF EXISTS weakest_score;
