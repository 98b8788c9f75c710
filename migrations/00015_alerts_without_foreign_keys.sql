-- document_alerts and notifications lose their foreign keys: only the
-- daily scan writes them, from rows it has just read, thousands at a time,
-- and the per-row checks were most of its time (docs/alerts.md,
-- BenchmarkScan). Companies, drivers and documents are never deleted (soft
-- delete only), so what they point at stays.

-- +goose Up
ALTER TABLE document_alerts DROP CONSTRAINT IF EXISTS document_alerts_company_id_fkey;
ALTER TABLE document_alerts DROP CONSTRAINT IF EXISTS document_alerts_company_id_document_id_fkey;
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_company_id_fkey;
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_user_id_fkey;
ALTER TABLE notifications DROP CONSTRAINT IF EXISTS notifications_alert_id_fkey;

-- +goose Down
ALTER TABLE document_alerts ADD FOREIGN KEY (company_id) REFERENCES companies (id);
ALTER TABLE document_alerts ADD FOREIGN KEY (company_id, document_id) REFERENCES driver_documents (company_id, id);
ALTER TABLE notifications ADD FOREIGN KEY (company_id) REFERENCES companies (id);
ALTER TABLE notifications ADD FOREIGN KEY (user_id) REFERENCES users (id);
ALTER TABLE notifications ADD FOREIGN KEY (alert_id) REFERENCES document_alerts (id);
