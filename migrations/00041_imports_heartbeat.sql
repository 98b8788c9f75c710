-- The driver import (docs/import-export.md): an import a crash cut off ends
-- failed. While an import runs, its server writes heartbeat_at every few
-- seconds; an import running without a heartbeat for a minute, or queued
-- for a minute without a job that will run it, is marked failed with
-- failure 'msg.imports.interrupted' (imports.FailInterrupted, at a
-- server's start and every minute). failure now holds the message key of
-- why an import failed, shown to people; the cause of an unexpected
-- failure goes to the log. The partial index holds the unfinished imports
-- only, the few the sweep reads.

-- +goose Up
ALTER TABLE imports ADD COLUMN heartbeat_at timestamptz;
CREATE INDEX imports_unfinished_idx ON imports (created_at) WHERE status IN ('queued', 'running');

-- +goose Down
DROP INDEX imports_unfinished_idx;
ALTER TABLE imports DROP COLUMN heartbeat_at;
