-- +goose Up
-- A driver belongs to one company, so "company_id = $1 AND id = ANY($2)"
-- matches every id asked for. Without these statistics the planner takes
-- the two conditions as independent and expects a tenth of the drivers of
-- a batch (182 of 1,824 for a 2,000-driver company), and a tenth of their
-- documents. Rating the company's month then looked up each of its 25,000
-- documents' uploads one by one instead of reading the month's 2,500
-- uploads of the company: 200 ms of a 400 ms statement
-- (docs/performance.md, "Rating a month").
CREATE STATISTICS drivers_company_dependency (dependencies) ON id, company_id FROM drivers;
CREATE STATISTICS driver_documents_company_dependency (dependencies) ON driver_id, company_id FROM driver_documents;
ANALYZE drivers;
ANALYZE driver_documents;

-- +goose Down
DROP STATISTICS IF EXISTS driver_documents_company_dependency;
DROP STATISTICS IF EXISTS drivers_company_dependency;
