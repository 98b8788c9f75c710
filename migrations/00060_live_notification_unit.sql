-- A unit's notification (kind transport_unit, docs/dispatch.md) names its
-- unit, but its live event notification.created did not: a page told of it
-- could not link the unit without reading the notification again. The
-- event's data now carries unit_id; everything else is as 00055 wrote it.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_live_notification() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO live_events (company_id, type, driver_id, user_id, body)
    VALUES (NEW.company_id, 'notification.created', NULL, NEW.user_id,
        jsonb_build_object('type', 'notification.created',
            'timestamp', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'data', jsonb_build_object('id', NEW.id, 'kind', NEW.kind, 'stage', NEW.stage,
                'driver_id', NEW.driver_id, 'penalty_id', NEW.penalty_id, 'unit_id', NEW.unit_id,
                'read_at', NEW.read_at, 'created_at', NEW.created_at))::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION konvoj_live_notification() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO live_events (company_id, type, driver_id, user_id, body)
    VALUES (NEW.company_id, 'notification.created', NULL, NEW.user_id,
        jsonb_build_object('type', 'notification.created',
            'timestamp', to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
            'data', jsonb_build_object('id', NEW.id, 'kind', NEW.kind, 'stage', NEW.stage,
                'driver_id', NEW.driver_id, 'penalty_id', NEW.penalty_id,
                'read_at', NEW.read_at, 'created_at', NEW.created_at))::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
