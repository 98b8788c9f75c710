-- +goose Up
-- A finance period holds one currency: its totals are sums of amounts, and a
-- sum of CZK and EUR means nothing. A driver paid in two currencies in one
-- month therefore has two monthly periods, one per currency, so the period's
-- unique key gains the currency.
ALTER TABLE finance_periods DROP CONSTRAINT finance_periods_driver_period_key;
ALTER TABLE finance_periods ADD CONSTRAINT finance_periods_driver_period_key
    UNIQUE (company_id, driver_id, period_start, period_end, period_type, currency);

-- +goose Down
ALTER TABLE finance_periods DROP CONSTRAINT finance_periods_driver_period_key;
ALTER TABLE finance_periods ADD CONSTRAINT finance_periods_driver_period_key
    UNIQUE (company_id, driver_id, period_start, period_end, period_type);
