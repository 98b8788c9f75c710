-- Web sessions (docs/security.md, "Web sign-in and sessions"): the pages'
-- session cookie holds a random secret; its SHA-256 hash names one row here.
-- The row holds the identity the sign-in verified. Sign-out deletes the row;
-- so do a change of the user's role or company, deactivating or deleting the
-- user (whichever front changes the user: the trigger below). A session ends
-- after 2 hours without a request or 12 hours after sign-in, checked on every
-- request; a job purges the rows that ended that way.

-- +goose Up
CREATE TABLE web_sessions (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- SHA-256 of the cookie's secret: the secret itself is never stored.
    token_hash       bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    -- The identity the sign-in verified (auth.Identity).
    subject          text NOT NULL,
    email            text NOT NULL,
    role             text NOT NULL
                     CHECK (role IN ('admin', 'accountant', 'hr_manager', 'dispatcher', 'driver')),
    first_name       text NOT NULL DEFAULT '',
    last_name        text NOT NULL DEFAULT '',
    email_unverified boolean NOT NULL DEFAULT false,
    user_agent       text NOT NULL DEFAULT '' CHECK (char_length(user_agent) <= 512),
    ip_address       text NOT NULL DEFAULT '' CHECK (char_length(ip_address) <= 64),
    created_at       timestamptz NOT NULL,
    last_seen_at     timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_idx ON web_sessions (company_id, user_id, created_at);
CREATE INDEX web_sessions_last_seen_idx ON web_sessions (last_seen_at);
CREATE INDEX web_sessions_created_idx ON web_sessions (created_at);
SELECT konvoj_enable_tenant_rls('web_sessions');

-- The session whose secret's hash is given, past row-level security: a
-- cookie names no company, so this is how a request finds out whose it is.
-- Only the holder of the secret can name the row.
-- +goose StatementBegin
CREATE FUNCTION konvoj_web_session(hash bytea) RETURNS SETOF web_sessions
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$ SELECT * FROM web_sessions WHERE token_hash = hash $$;
-- +goose StatementEnd
REVOKE ALL ON FUNCTION konvoj_web_session(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION konvoj_web_session(bytea) TO konvoj_app;

-- A user whose role or company changes, or who is deactivated, has no
-- session left (deleting the user cascades). It runs as the owner, so the
-- sessions end whatever company the changing request is set to.
-- +goose StatementBegin
CREATE FUNCTION konvoj_end_user_sessions() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public
AS $$
BEGIN
    DELETE FROM web_sessions WHERE user_id = OLD.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER users_end_sessions
    AFTER UPDATE OF role, company_id, is_active ON users
    FOR EACH ROW
    WHEN (OLD.role IS DISTINCT FROM NEW.role OR OLD.company_id IS DISTINCT FROM NEW.company_id
        OR (OLD.is_active AND NOT NEW.is_active))
    EXECUTE FUNCTION konvoj_end_user_sessions();

-- +goose Down
DROP TRIGGER users_end_sessions ON users;
DROP FUNCTION konvoj_end_user_sessions();
DROP FUNCTION konvoj_web_session(bytea);
DROP TABLE web_sessions;
