-- One-time form tokens (docs/web-app.md, "Sending a form twice"): a create
-- form carries a random token; the first submission claims it here, and a
-- second submission of the same form finds the claim and creates nothing.
-- result_url is where the first submission went once it succeeded (null
-- while it is still running). A refused submission releases its claim, so
-- the corrected form can be sent again.

-- +goose Up
CREATE TABLE form_submissions (
    company_id uuid NOT NULL REFERENCES companies (id),
    token      uuid NOT NULL,
    user_id    uuid REFERENCES users (id),
    result_url text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, token)
);
CREATE INDEX form_submissions_created_idx ON form_submissions (created_at);
SELECT konvoj_enable_tenant_rls('form_submissions');

-- +goose Down
DROP TABLE form_submissions;
