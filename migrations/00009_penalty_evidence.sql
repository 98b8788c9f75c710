-- +goose Up
-- Evidence files of penalties (docs/finance.md, "Evidence files"): photos
-- and PDFs stored like document files, one row per file.
ALTER TABLE penalties ADD CONSTRAINT penalties_company_id_id_key UNIQUE (company_id, id);

CREATE TABLE penalty_evidence (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id        uuid NOT NULL REFERENCES companies (id),
    penalty_id        uuid NOT NULL,
    filename          varchar(255) NOT NULL, -- generated: {uuid}.{ext}
    original_filename varchar(255) NOT NULL, -- as sent by the uploader
    mime_type         varchar(100) NOT NULL,
    size_bytes        bigint NOT NULL CHECK (size_bytes >= 0),
    note              text,
    storage_path      text NOT NULL, -- {company_id}/{driver_id}/penalties/{penalty_id}/{filename}
    storage_disk      text NOT NULL CHECK (storage_disk IN ('local', 's3')),
    hash_sha256       char(64) NOT NULL CHECK (hash_sha256 ~ '^[0-9a-f]{64}$'),
    uploaded_by       uuid REFERENCES users (id),
    created_at        timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, penalty_id) REFERENCES penalties (company_id, id)
);
CREATE INDEX penalty_evidence_penalty_idx ON penalty_evidence (company_id, penalty_id, created_at, id);

-- The dispute queue: a company's penalties by status, oldest dispute first.
CREATE INDEX penalties_queue_idx ON penalties (company_id, status, dispute_submitted_at, created_at, id)
    WHERE deleted_at IS NULL;

SELECT konvoj_enable_tenant_rls('penalty_evidence');

-- +goose Down
DROP INDEX penalties_queue_idx;
DROP TABLE penalty_evidence;
ALTER TABLE penalties DROP CONSTRAINT penalties_company_id_id_key;
