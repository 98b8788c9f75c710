-- Driver imports (docs/import-export.md): one row per upload, its file kept
-- for the background job and for the page's preview and confirmation, and
-- its result (counts, row errors) once checked or done.

-- +goose Up
CREATE TABLE imports (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies (id),
    user_id     uuid,
    user_name   text,
    user_role   text NOT NULL,
    user_email  text,
    ip_address  text,
    user_agent  text,
    status      text NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    dry_run     boolean NOT NULL,
    filename    text NOT NULL,
    file        bytea,
    -- header → field chosen by the user (overrides the automatic match).
    mapping     jsonb NOT NULL DEFAULT '{}',
    rows        integer NOT NULL DEFAULT 0,
    created     integer NOT NULL DEFAULT 0,
    updated     integer NOT NULL DEFAULT 0,
    unchanged   integer NOT NULL DEFAULT 0,
    errors      jsonb NOT NULL DEFAULT '[]',
    progress    integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
    failure     text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX imports_company_created_idx ON imports (company_id, created_at DESC);
SELECT konvoj_enable_tenant_rls('imports');

-- +goose Down
DROP TABLE imports;
