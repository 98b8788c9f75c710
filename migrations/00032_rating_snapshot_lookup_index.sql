-- A driver's stored snapshot of a month, found by company, driver and month
-- (docs/performance.md, "The current month's rank").
--
-- The current month's rating reads the driver's own snapshot of the month
-- twice (its id and score, and to leave it out of the rank). Both lookups
-- name the company, the driver and the month; the unique (driver_id,
-- rating_period) key and the ranking's (company_id, rating_period,
-- total_score) index cost the same to the planner whenever the month's
-- statistics expect a handful of rows, as they do until an ANALYZE after the
-- month was first written (a month of 18,000 snapshots is under autovacuum's
-- threshold on a table of a year of them). It then took the ranking index
-- and read the company's whole month to find one row: 10,000-18,000
-- entries, 2.5-5 ms, on the 20,000-driver company. With all three columns
-- in one index the lookup is one probe whatever the statistics say.

-- +goose Up
CREATE INDEX rating_snapshots_company_driver_period_idx ON rating_snapshots (company_id, driver_id, rating_period);

-- +goose Down
DROP INDEX rating_snapshots_company_driver_period_idx;
