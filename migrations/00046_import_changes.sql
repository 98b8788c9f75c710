-- The driver import (docs/import-export.md): what each row changes, and
-- how rows with errors are treated. changes holds one entry per row without
-- an error ({row, action, driver_id, fields: {field: {old, new}}}), stored
-- with the counts when the import ends. mode is all_or_nothing (a row with
-- an error stops the whole file) or valid_rows (the rows without errors
-- are applied, the others reported).

-- +goose Up
ALTER TABLE imports
    ADD COLUMN mode text NOT NULL DEFAULT 'all_or_nothing' CHECK (mode IN ('all_or_nothing', 'valid_rows')),
    ADD COLUMN changes jsonb NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE imports DROP COLUMN changes, DROP COLUMN mode;
