-- Webhooks (docs/webhooks.md): the endpoints an admin registers, the events
-- the services write in the transaction of their change (the outbox), and
-- one delivery per event and endpoint that the River workers send.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id    uuid NOT NULL REFERENCES companies (id),
    url           text NOT NULL,
    description   text NOT NULL DEFAULT '',
    -- Event names, or '*' for every event.
    events        text[] NOT NULL CHECK (cardinality(events) > 0),
    enabled       boolean NOT NULL DEFAULT true,
    -- whsec_ + base64 of 24 random bytes; kept to sign (docs/webhooks.md, "Secrets").
    secret        text NOT NULL,
    -- The first failed attempt since the last success; five days of it
    -- disable the endpoint.
    failing_since timestamptz,
    -- Why it was disabled by Konvoj ('failing'); NULL when an admin did it or it is enabled.
    disabled_reason text CHECK (disabled_reason IN ('failing')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_company_idx ON webhook_endpoints (company_id, created_at);
SELECT konvoj_enable_tenant_rls('webhook_endpoints');

-- An event, written once with its exact body: every delivery and retry
-- signs and sends these bytes.
CREATE TABLE webhook_events (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies (id),
    type        text NOT NULL,
    occurred_at timestamptz NOT NULL,
    body        text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
SELECT konvoj_enable_tenant_rls('webhook_events');

CREATE TABLE webhook_deliveries (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies (id),
    endpoint_id      uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id         uuid NOT NULL REFERENCES webhook_events (id),
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts         integer NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_duration_ms integer,
    last_error       text,
    delivered_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now()
);
-- The head of an endpoint's queue: its oldest pending delivery by event time.
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (endpoint_id, created_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);
SELECT konvoj_enable_tenant_rls('webhook_deliveries');

-- The admins are told in-app when Konvoj disables a failing endpoint: a
-- notification that is about an endpoint, not a document alert.
ALTER TABLE notifications ALTER COLUMN alert_id DROP NOT NULL;
ALTER TABLE notifications ADD COLUMN webhook_id uuid;
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review', 'webhook_disabled'));
ALTER TABLE notifications ADD CONSTRAINT notifications_subject_check
    CHECK ((kind = 'webhook_disabled') = (alert_id IS NULL) AND (kind = 'webhook_disabled') = (webhook_id IS NOT NULL));

-- Audit rows for endpoint changes: the record kind is added to whatever
-- list the constraint holds.
-- +goose StatementBegin
DO $$
DECLARE
    def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    IF def IS NOT NULL AND position('webhook_endpoint' IN def) = 0 THEN
        ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check;
        EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
            || replace(def, 'ARRAY[', 'ARRAY[''webhook_endpoint''::text, ');
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose Down
DELETE FROM audit_logs WHERE entity_type = 'webhook_endpoint';
-- +goose StatementBegin
DO $$
DECLARE
    def text;
BEGIN
    SELECT pg_get_constraintdef(oid) INTO def FROM pg_constraint
    WHERE conrelid = 'audit_logs'::regclass AND conname = 'audit_logs_entity_type_check';
    IF def IS NOT NULL THEN
        ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_entity_type_check;
        EXECUTE 'ALTER TABLE audit_logs ADD CONSTRAINT audit_logs_entity_type_check '
            || replace(def, '''webhook_endpoint''::text, ', '');
    END IF;
END
$$;
-- +goose StatementEnd
DELETE FROM notifications WHERE kind = 'webhook_disabled';
ALTER TABLE notifications DROP CONSTRAINT notifications_subject_check;
ALTER TABLE notifications DROP CONSTRAINT notifications_kind_check;
ALTER TABLE notifications ADD CONSTRAINT notifications_kind_check
    CHECK (kind IN ('document_alert', 'document_reminder', 'document_review'));
ALTER TABLE notifications DROP COLUMN webhook_id;
ALTER TABLE notifications ALTER COLUMN alert_id SET NOT NULL;
DROP TABLE webhook_deliveries;
DROP TABLE webhook_events;
DROP TABLE webhook_endpoints;
