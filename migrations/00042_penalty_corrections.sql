-- +goose Up
-- A penalty dated inside a closed or paid pay period can still be disputed
-- and resolved (docs/finance.md, "Penalties inside a closed period"). Its
-- finance record there stays as it was; a resolution that changes money
-- posts a correcting transaction of type `adjustment` (category
-- `penalty_correction`) into the driver's open period of the resolution
-- day, and the penalty keeps that correction's id (correction_id): linked
-- both ways, the correction's metadata naming the penalty and the record
-- it corrects.
--
-- The widened check is added NOT VALID and then validated: the validation
-- scans the table without blocking reads, and every existing row passes,
-- as the old check was narrower.
ALTER TABLE finance_transactions DROP CONSTRAINT finance_transactions_transaction_type_check;
ALTER TABLE finance_transactions ADD CONSTRAINT finance_transactions_transaction_type_check CHECK (transaction_type IN (
    'base_salary', 'overtime', 'bonus', 'penalty', 'deduction',
    'business_trip', 'allowance', 'reimbursement', 'adjustment')) NOT VALID;
ALTER TABLE finance_transactions VALIDATE CONSTRAINT finance_transactions_transaction_type_check;

ALTER TABLE penalties ADD COLUMN correction_id uuid;
ALTER TABLE penalties ADD CONSTRAINT penalties_correction_fkey
    FOREIGN KEY (company_id, correction_id) REFERENCES finance_transactions (company_id, id);
-- A correction belongs to one penalty; transaction reads find their
-- penalty through it.
CREATE UNIQUE INDEX penalties_correction_id_key ON penalties (correction_id) WHERE correction_id IS NOT NULL;

-- +goose Down
DROP INDEX penalties_correction_id_key;
ALTER TABLE penalties DROP COLUMN correction_id;
-- Fails while corrections exist: they would have no type to go back to.
ALTER TABLE finance_transactions DROP CONSTRAINT finance_transactions_transaction_type_check;
ALTER TABLE finance_transactions ADD CONSTRAINT finance_transactions_transaction_type_check CHECK (transaction_type IN (
    'base_salary', 'overtime', 'bonus', 'penalty', 'deduction',
    'business_trip', 'allowance', 'reimbursement'));
