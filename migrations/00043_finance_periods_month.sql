-- The company's pay periods of a month (docs/finance.md, "Month-end";
-- docs/performance.md, "Month-end"): the month-end page, the bulk close and pay
-- and the payroll find a month's periods by company and start. The only
-- index that began with the company went on with the driver, so the month
-- was a scan of every period of every company: on a company of 2,000
-- drivers with a year of periods, 24,000 rows read for 2,000.

-- +goose Up
CREATE INDEX finance_periods_company_start_idx ON finance_periods (company_id, period_start);

-- +goose Down
DROP INDEX finance_periods_company_start_idx;
