-- Live updates (docs/live-updates.md): every event of the webhooks and every
-- new in-app notification is recorded here in the transaction of its change,
-- kept 24 hours, and streamed to the company's open event streams.
--
-- Numbering. A stream resumes from "the events after id N", so within a
-- company the ids must become visible in id order: a sequence value taken
-- inside a transaction would not (a transaction that took 5 may commit after
-- one that took 6, and a reader that saw 6 would skip 5 for good). So a row
-- is inserted without an id, and a deferred trigger numbers it at commit,
-- under the company's transaction-level advisory lock: the next transaction
-- of the company numbers its rows only once this one has committed (or
-- rolled back) and released the lock. The lock is held only from the
-- trigger to the end of the commit, so changes of a company still run in
-- parallel; only their last step is taken in turn. The trigger also sends
-- NOTIFY konvoj_live with the company's id, which PostgreSQL delivers only
-- on commit: a rolled-back change numbers nothing and tells no one.

-- +goose Up
CREATE SEQUENCE live_events_id_seq;

CREATE TABLE live_events (
    -- The order of insertion, for the trigger to find its row.
    ord         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The stream's id: set at commit (NULL until then, never seen so).
    id          bigint UNIQUE,
    company_id  uuid NOT NULL REFERENCES companies (id),
    type        text NOT NULL,
    -- The driver the event is about (a driver caller gets only its own);
    -- NULL for an event about no driver (a vehicle, an import, a month's rating).
    driver_id   uuid,
    -- The recipient of a notification.created (only that user gets it).
    user_id     uuid,
    -- The webhook body: {"type", "timestamp", "data"}.
    body        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX live_events_company_idx ON live_events (company_id, id);
CREATE INDEX live_events_created_idx ON live_events (created_at);
SELECT konvoj_enable_tenant_rls('live_events');

-- The highest id pruned per company: a stream that resumes from below it
-- may have missed pruned events and is told to reload (event: reset).
CREATE TABLE live_horizons (
    company_id  uuid PRIMARY KEY REFERENCES companies (id),
    pruned_to   bigint NOT NULL
);
SELECT konvoj_enable_tenant_rls('live_horizons');

-- +goose StatementBegin
CREATE FUNCTION konvoj_live_number() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_catalog
AS $$
BEGIN
    -- Reentrant: the transaction's second row takes no new lock.
    PERFORM pg_advisory_xact_lock(hashtextextended('konvoj_live:' || NEW.company_id::text, 0));
    UPDATE live_events SET id = nextval('live_events_id_seq') WHERE ord = NEW.ord;
    -- Notifications with one payload are sent once per transaction.
    PERFORM pg_notify('konvoj_live', NEW.company_id::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE CONSTRAINT TRIGGER live_events_number AFTER INSERT ON live_events
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION konvoj_live_number();

-- Every notification row is a notification.created event for its user,
-- whichever code path wrote it. The data is the notification's identity
-- and subject; its text is the notifications list's (GET /api/v0/notifications).
-- +goose StatementBegin
CREATE FUNCTION konvoj_live_notification() RETURNS trigger
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

CREATE TRIGGER notifications_live AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION konvoj_live_notification();

-- +goose Down
DROP TRIGGER notifications_live ON notifications;
DROP FUNCTION konvoj_live_notification();
DROP TABLE live_horizons;
DROP TABLE live_events;
DROP FUNCTION konvoj_live_number();
DROP SEQUENCE live_events_id_seq;
