-- What an import brings in (docs/import-export.md): drivers, vehicles or
-- trailers. The rows of one file are of one kind; reading an import, its
-- job and a new check of its file take the kind from here.

-- +goose Up
ALTER TABLE imports
    ADD COLUMN kind text NOT NULL DEFAULT 'drivers' CHECK (kind IN ('drivers', 'vehicles', 'trailers'));

-- +goose Down
ALTER TABLE imports DROP COLUMN kind;
