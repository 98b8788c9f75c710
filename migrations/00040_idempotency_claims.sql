-- +goose Up
-- Idempotency keys (docs/idempotency.md) bind the caller's role, and carry
-- the claim of the request that holds them.
--
-- user_role: a kept answer is replayed only to the user with the role that
-- made it; a token of the same user with another role (a driver after an
-- admin) is another request. Keys written before have none and replay to
-- no one (another request, 422) for the rest of their 24 hours.
--
-- claim: a token each request makes when it claims the key (first, or by
-- taking over a key left running). Storing the answer and releasing the
-- key name it, so a request whose key was taken over can do neither.
ALTER TABLE idempotency_keys ADD COLUMN user_role text, ADD COLUMN claim uuid;

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN user_role, DROP COLUMN claim;
