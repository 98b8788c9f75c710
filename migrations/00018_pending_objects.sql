-- Stored objects whose database row has not committed yet (docs/security.md,
-- "Uploads and crashes"). An upload records its object here, in a
-- transaction of its own, before the object is written; the transaction
-- that inserts the object's row deletes the record. A record that outlives
-- its upload (the process was killed, the database went away) names an
-- object that no row will ever point to: the upload sweeper deletes that
-- object and the record once the record is an hour old.

-- +goose Up
CREATE TABLE pending_objects (
    id           uuid PRIMARY KEY, -- the id of the row that will record the object
    company_id   uuid NOT NULL REFERENCES companies (id),
    row_table    text NOT NULL CHECK (row_table IN ('document_files', 'penalty_evidence')),
    folder       text NOT NULL,    -- the object is in this folder, its name holds id
    storage_disk text NOT NULL CHECK (storage_disk IN ('local', 's3')),
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pending_objects_age_idx ON pending_objects (storage_disk, created_at);

SELECT konvoj_enable_tenant_rls('pending_objects');

-- +goose Down
DROP TABLE pending_objects;
