-- Expiry alerts (docs/alerts.md): the daily scan's runs, the stages it has
-- recorded, weekly reminders, in-app notifications, per-user e-mail
-- settings and the outbox of e-mails.

-- +goose Up

-- One scan per company and company-local day, across instances and reruns:
-- the scan inserts its row first, in its own transaction, and a second scan
-- of the same day waits for the first, then finds the row and does nothing.
CREATE TABLE alert_runs (
    company_id uuid NOT NULL REFERENCES companies (id),
    run_date   date NOT NULL,
    alerts     integer NOT NULL DEFAULT 0,
    emails     integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, run_date)
);
SELECT konvoj_enable_tenant_rls('alert_runs');

-- Each stage of each document version, once ever. file_id is the version
-- (the current file at the scan); NULL for 'missing' (no file at all).
CREATE TABLE document_alerts (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id    uuid NOT NULL REFERENCES companies (id),
    driver_id     uuid NOT NULL,
    document_id   uuid NOT NULL,
    document_type text NOT NULL,
    file_id       uuid,
    stage         text NOT NULL CHECK (stage IN ('lead', 'expiring_soon', 'expired', 'missing', 'reminder')),
    valid_until   date,
    -- The company-local day of the scan that found it; for a reminder, the
    -- Monday it belongs to.
    alert_date    date NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, document_id) REFERENCES driver_documents (company_id, id),
    -- Stages once per version; reminders once per version and Monday.
    CONSTRAINT document_alerts_once UNIQUE NULLS NOT DISTINCT (document_id, file_id, stage, alert_date)
);
CREATE UNIQUE INDEX document_alerts_stage_once ON document_alerts (document_id, file_id, stage)
    NULLS NOT DISTINCT WHERE stage <> 'reminder';
CREATE INDEX document_alerts_company_date_idx ON document_alerts (company_id, alert_date);
SELECT konvoj_enable_tenant_rls('document_alerts');

-- In-app notifications, one per recipient (a user) and alert.
CREATE TABLE notifications (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id    uuid NOT NULL REFERENCES companies (id),
    user_id       uuid NOT NULL REFERENCES users (id),
    alert_id      uuid NOT NULL REFERENCES document_alerts (id),
    kind          text NOT NULL CHECK (kind IN ('document_alert', 'document_reminder')),
    read_at       timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (user_id, alert_id)
);
CREATE INDEX notifications_user_created_idx ON notifications (user_id, created_at DESC, id DESC);
CREATE INDEX notifications_user_unread_idx ON notifications (user_id) WHERE read_at IS NULL;
SELECT konvoj_enable_tenant_rls('notifications');

-- A user's e-mail choices: kind -> false opts out of e-mail for that kind.
CREATE TABLE notification_settings (
    user_id    uuid PRIMARY KEY REFERENCES users (id),
    company_id uuid NOT NULL REFERENCES companies (id),
    email      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(email) = 'object'),
    updated_at timestamptz NOT NULL DEFAULT now()
);
SELECT konvoj_enable_tenant_rls('notification_settings');

-- Every e-mail, written in the transaction of its cause and delivered by a
-- River job. sent_at is set once the SMTP server accepted it.
CREATE TABLE outbox (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies (id),
    kind        text NOT NULL,
    recipient   text NOT NULL,
    language    char(2) NOT NULL,
    subject     text NOT NULL,
    text_body   text NOT NULL,
    html_body   text NOT NULL,
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text,
    sent_at     timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_unsent_idx ON outbox (created_at) WHERE sent_at IS NULL;
CREATE INDEX outbox_company_created_idx ON outbox (company_id, created_at DESC);
SELECT konvoj_enable_tenant_rls('outbox');

-- +goose Down
DROP TABLE outbox;
DROP TABLE notification_settings;
DROP TABLE notifications;
DROP TABLE document_alerts;
DROP TABLE alert_runs;
