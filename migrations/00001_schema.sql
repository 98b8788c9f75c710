-- Konvoj schema: the whole stored data model of spec/driver-workforce-api.md.
--
-- Conventions
--   * Every tenant-owned table has company_id and every index a list uses leads
--     with company_id (every query filters by company: docs/security.md).
--   * Child rows point at their parent with a composite foreign key
--     (company_id, parent_id) -> parent (company_id, id), so a row can never
--     reference a record of another company. Parents therefore carry
--     UNIQUE (company_id, id) next to their primary key.
--   * Foreign keys use the default RESTRICT: records are soft-deleted
--     (deleted_at), never removed from under their children. The one cascade is
--     rating_components, which are owned by their snapshot.
--   * Money is numeric(10,2); running sums that can outgrow it are numeric(12,2).
--   * Codes: country char(2) upper case (ISO 3166-1), currency char(3) upper
--     case (ISO 4217), language char(2) lower case (ISO 639-1).
--   * updated_at is bumped by a trigger when an UPDATE does not set it itself.

-- +goose Up

CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- unaccent() is only STABLE (it looks its dictionary up by name at run time),
-- so it cannot be used in a generated column or an index. Naming the
-- dictionary explicitly makes the result depend on the input only.
-- +goose StatementBegin
CREATE FUNCTION konvoj_unaccent(text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
-- +goose StatementEnd

-- Sets updated_at = now() on UPDATE unless the statement set it explicitly
-- (so the application and seed data may still write their own value).
-- +goose StatementBegin
CREATE FUNCTION konvoj_touch_updated_at() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
        NEW.updated_at := now();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

------------------------------------------------------------------------------
-- Tenants, offices, users
------------------------------------------------------------------------------

CREATE TABLE companies (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name               varchar(200) NOT NULL,
    country_code       char(2) NOT NULL DEFAULT 'CZ' CHECK (country_code ~ '^[A-Z]{2}$'),
    currency           char(3) NOT NULL DEFAULT 'CZK' CHECK (currency ~ '^[A-Z]{3}$'),
    vat_number         varchar(50),
    is_vat_payer       boolean NOT NULL DEFAULT false,
    tax_rate           numeric(4,2) CHECK (tax_rate >= 0),
    default_language   char(2) NOT NULL DEFAULT 'cs' CHECK (default_language ~ '^[a-z]{2}$'),
    timezone           text NOT NULL DEFAULT 'Europe/Prague', -- IANA name; "today" is computed in it
    subscription_tier  text NOT NULL DEFAULT 'free'
                       CHECK (subscription_tier IN ('free', 'starter', 'professional', 'business', 'enterprise')),
    trial_ends_at      timestamptz,
    bank_accounts      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(bank_accounts) = 'array'),
    settings           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
    -- Counters behind DRV-/VEH-/TRL- numbers. Taking the next number is
    -- "UPDATE companies SET x_seq = x_seq + 1 ... RETURNING x_seq": the row lock
    -- serialises concurrent creates, and a number is never reused.
    driver_number_seq  bigint NOT NULL DEFAULT 0 CHECK (driver_number_seq >= 0),
    vehicle_number_seq bigint NOT NULL DEFAULT 0 CHECK (vehicle_number_seq >= 0),
    trailer_number_seq bigint NOT NULL DEFAULT 0 CHECK (trailer_number_seq >= 0),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE offices (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id      uuid NOT NULL REFERENCES companies (id),
    name            varchar(200) NOT NULL,
    country_code    char(2) CHECK (country_code ~ '^[A-Z]{2}$'),
    city            varchar(100),
    is_headquarters boolean NOT NULL DEFAULT false,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    deleted_at      timestamptz,
    UNIQUE (company_id, id)
);
CREATE INDEX offices_company_id_idx ON offices (company_id);
-- At most one live headquarters per company.
CREATE UNIQUE INDEX offices_company_headquarters_key ON offices (company_id)
    WHERE is_headquarters AND deleted_at IS NULL;

-- Users are provisioned just in time from the identity provider's token, which
-- stays the source of truth: id is the token's sub (set by the application),
-- and e-mail is not unique here because the provider owns it.
CREATE TABLE users (
    id                 uuid PRIMARY KEY,
    company_id         uuid NOT NULL REFERENCES companies (id),
    office_id          uuid,
    external_id        text NOT NULL UNIQUE,
    email              varchar(255) NOT NULL,
    first_name         varchar(100),
    last_name          varchar(100),
    role               text NOT NULL
                       CHECK (role IN ('admin', 'accountant', 'hr_manager', 'dispatcher', 'driver')),
    roles              text[] NOT NULL DEFAULT '{}', -- earlier claim layout; kept as received
    preferred_language char(2) CHECK (preferred_language ~ '^[a-z]{2}$'),
    theme              text NOT NULL DEFAULT 'light' CHECK (theme IN ('light', 'dark')),
    is_active          boolean NOT NULL DEFAULT true,
    last_login_at      timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, office_id) REFERENCES offices (company_id, id)
);
CREATE INDEX users_company_email_idx ON users (company_id, lower(email));

------------------------------------------------------------------------------
-- Drivers and their documents
------------------------------------------------------------------------------

CREATE TABLE drivers (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id           uuid NOT NULL REFERENCES companies (id),
    office_id            uuid,
    -- DRV-0001 ...; internal_seq is its numeric part, used for sorting so that
    -- DRV-10000 sorts after DRV-9999. The CHECK keeps the two in step.
    internal_number      varchar(20) NOT NULL,
    internal_seq         bigint NOT NULL CHECK (internal_seq > 0),
    first_name           varchar(100) NOT NULL,
    last_name            varchar(100) NOT NULL,
    middle_name          varchar(100),
    birth_date           date,
    citizenship          char(2) CHECK (citizenship ~ '^[A-Z]{2}$'),
    rodne_cislo          varchar(20),
    email                varchar(255) NOT NULL,
    phone                varchar(50),
    registration_address text, -- permanent address
    residence_address    text, -- temporary address
    status               text NOT NULL DEFAULT 'active'
                         CHECK (status IN ('active', 'on_leave', 'inactive', 'terminated')),
    hire_date            date,
    fire_date            date,
    contract_from        date,
    contract_to          date,
    contract_indefinite  boolean NOT NULL DEFAULT false,
    work_location        varchar(50),
    bank_country         char(2) CHECK (bank_country ~ '^[A-Z]{2}$'),
    bank_account         varchar(50),
    iban                 varchar(34),
    swift                varchar(11),
    flags                jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(flags) = 'object'),
    -- Accent- and case-free text for search ("Novak" finds "Novák").
    search_text          text GENERATED ALWAYS AS (
                             konvoj_unaccent(lower(
                                 first_name || ' ' || coalesce(middle_name || ' ', '') || last_name
                                 || ' ' || email || ' ' || internal_number))
                         ) STORED,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    deleted_at           timestamptz,
    UNIQUE (company_id, id),
    CONSTRAINT drivers_company_internal_number_key UNIQUE (company_id, internal_number),
    CONSTRAINT drivers_internal_number_check CHECK (
        internal_number = 'DRV-' || lpad(internal_seq::text, greatest(4, length(internal_seq::text)), '0')),
    CONSTRAINT drivers_contract_dates_check CHECK (contract_from < contract_to),
    CONSTRAINT drivers_employment_dates_check CHECK (fire_date >= hire_date),
    FOREIGN KEY (company_id, office_id) REFERENCES offices (company_id, id)
);
-- A deleted driver frees its e-mail for a new driver (docs/drivers-and-documents.md).
CREATE UNIQUE INDEX drivers_company_email_key ON drivers (company_id, lower(email))
    WHERE deleted_at IS NULL;
CREATE INDEX drivers_search_text_trgm_idx ON drivers USING gin (search_text gin_trgm_ops);
-- List sorts (keyset: sort key, then id).
CREATE INDEX drivers_company_internal_seq_idx ON drivers (company_id, internal_seq, id);
CREATE INDEX drivers_company_last_name_idx ON drivers (company_id, last_name, id);
CREATE INDEX drivers_company_hire_date_idx ON drivers (company_id, hire_date, id);
CREATE INDEX drivers_company_created_at_idx ON drivers (company_id, created_at, id);
-- List filters.
CREATE INDEX drivers_company_status_idx ON drivers (company_id, status);
CREATE INDEX drivers_company_office_idx ON drivers (company_id, office_id);
CREATE INDEX drivers_company_citizenship_idx ON drivers (company_id, citizenship);

-- One record per document type per driver, created with the driver. Status
-- (valid, warning, ...) depends on "today" and is computed when read.
CREATE TABLE driver_documents (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies (id),
    driver_id   uuid NOT NULL,
    type        text NOT NULL CHECK (type IN (
                    'passport', 'visa_biometrics', 'residence_permit', 'work_permit',
                    'a1_eu', 'a1_switzerland', 'declaration', 'health_insurance',
                    'travel_insurance', 'drivers_license', 'adr_certificate',
                    'tachograph_card', 'code_95', 'medical_examination')),
    number      varchar(100),
    country     char(2) CHECK (country ~ '^[A-Z]{2}$'), -- issuing country
    valid_from  date,
    valid_until date, -- null: does not expire
    meta        jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(meta) = 'object'),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id),
    CONSTRAINT driver_documents_driver_type_key UNIQUE (driver_id, type),
    CONSTRAINT driver_documents_validity_check CHECK (valid_until >= valid_from),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id)
);
-- Expiry scans and the document_status filter.
CREATE INDEX driver_documents_company_valid_until_idx ON driver_documents (company_id, valid_until);

CREATE TABLE document_files (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id        uuid NOT NULL REFERENCES companies (id),
    document_id       uuid NOT NULL,
    filename          varchar(255) NOT NULL, -- generated: v{version}_{uuid}.{ext}
    original_filename varchar(255) NOT NULL, -- as sent by the uploader
    mime_type         varchar(100) NOT NULL,
    size_bytes        bigint NOT NULL CHECK (size_bytes >= 0),
    version           integer NOT NULL CHECK (version > 0),
    is_current        boolean NOT NULL DEFAULT true,
    storage_path      text NOT NULL, -- {company_id}/{driver_id}/{document_type}/{filename}
    storage_disk      text NOT NULL CHECK (storage_disk IN ('local', 's3')),
    hash_sha256       char(64) NOT NULL CHECK (hash_sha256 ~ '^[0-9a-f]{64}$'), -- lower-case hex
    uploaded_by       uuid REFERENCES users (id),
    uploaded_at       timestamptz NOT NULL DEFAULT now(),
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT document_files_document_version_key UNIQUE (document_id, version),
    FOREIGN KEY (company_id, document_id) REFERENCES driver_documents (company_id, id)
);
-- Only the latest version is current: an upload clears the old flag first.
CREATE UNIQUE INDEX document_files_current_key ON document_files (document_id) WHERE is_current;
-- Rating: files uploaded in a month (document_upload_timeliness).
CREATE INDEX document_files_company_uploaded_at_idx ON document_files (company_id, uploaded_at);

------------------------------------------------------------------------------
-- Fleet: vehicles, trailers, transport units (stored, not yet exposed)
------------------------------------------------------------------------------

CREATE TABLE vehicles (
    id                           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id                   uuid NOT NULL REFERENCES companies (id),
    office_id                    uuid,
    internal_number              varchar(20) NOT NULL, -- VEH-<number>
    internal_seq                 bigint NOT NULL CHECK (internal_seq > 0),
    type                         text NOT NULL CHECK (type IN ('lkv', 'pkv')), -- truck, light vehicle
    status                       text NOT NULL DEFAULT 'active'
                                 CHECK (status IN ('active', 'in_service', 'inactive', 'sold')),
    -- How a light vehicle is used; trucks are assigned through transport units.
    assignment_mode              text CHECK (assignment_mode IN ('assigned', 'pool', 'unassigned')),
    plate_number                 varchar(20),
    vin                          varchar(17),
    make                         varchar(100),
    model                        varchar(100),
    year                         smallint CHECK (year BETWEEN 1900 AND 2100),
    fuel_type                    text CHECK (fuel_type IN ('diesel', 'petrol', 'electric', 'hybrid')),
    emission_class               varchar(10), -- e.g. EURO6
    color                        varchar(50),
    gross_weight_kg              integer CHECK (gross_weight_kg > 0),
    payload_kg                   integer CHECK (payload_kg >= 0),
    axles                        smallint CHECK (axles > 0),
    odometer_km                  integer CHECK (odometer_km >= 0),
    first_registration_date      date,
    technical_inspection_until   date,
    insurance_until              date,
    tachograph_calibration_until date,
    notes                        text,
    created_at                   timestamptz NOT NULL DEFAULT now(),
    updated_at                   timestamptz NOT NULL DEFAULT now(),
    deleted_at                   timestamptz,
    UNIQUE (company_id, id),
    CONSTRAINT vehicles_company_internal_number_key UNIQUE (company_id, internal_number),
    CONSTRAINT vehicles_internal_number_check CHECK (internal_number ~ '^VEH-[0-9]+$'),
    CONSTRAINT vehicles_assignment_mode_pkv_check CHECK (assignment_mode IS NULL OR type = 'pkv'),
    FOREIGN KEY (company_id, office_id) REFERENCES offices (company_id, id)
);
CREATE UNIQUE INDEX vehicles_company_plate_number_key ON vehicles (company_id, plate_number)
    WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX vehicles_company_vin_key ON vehicles (company_id, vin)
    WHERE deleted_at IS NULL;
CREATE INDEX vehicles_company_internal_seq_idx ON vehicles (company_id, internal_seq, id);
CREATE INDEX vehicles_company_status_idx ON vehicles (company_id, status);
CREATE INDEX vehicles_company_type_idx ON vehicles (company_id, type);

CREATE TABLE trailers (
    id                         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id                 uuid NOT NULL REFERENCES companies (id),
    office_id                  uuid,
    internal_number            varchar(20) NOT NULL, -- TRL-<number>
    internal_seq               bigint NOT NULL CHECK (internal_seq > 0),
    type                       text NOT NULL
                               CHECK (type IN ('standard', 'mega', 'frigo', 'van', 'tautliner')),
    status                     text NOT NULL DEFAULT 'active'
                               CHECK (status IN ('active', 'in_service', 'inactive')),
    plate_number               varchar(20),
    vin                        varchar(17),
    make                       varchar(100),
    model                      varchar(100),
    year                       smallint CHECK (year BETWEEN 1900 AND 2100),
    has_refrigeration          boolean NOT NULL DEFAULT false,
    temperature_min            numeric(5,2), -- degrees Celsius
    temperature_max            numeric(5,2),
    gross_weight_kg            integer CHECK (gross_weight_kg > 0),
    payload_kg                 integer CHECK (payload_kg >= 0),
    axles                      smallint CHECK (axles > 0),
    volume_m3                  numeric(6,2) CHECK (volume_m3 > 0),
    technical_inspection_until date,
    insurance_until            date,
    notes                      text,
    created_at                 timestamptz NOT NULL DEFAULT now(),
    updated_at                 timestamptz NOT NULL DEFAULT now(),
    deleted_at                 timestamptz,
    UNIQUE (company_id, id),
    CONSTRAINT trailers_company_internal_number_key UNIQUE (company_id, internal_number),
    CONSTRAINT trailers_internal_number_check CHECK (internal_number ~ '^TRL-[0-9]+$'),
    CONSTRAINT trailers_temperature_range_check CHECK (temperature_min <= temperature_max),
    -- A temperature range only makes sense for a refrigerated trailer.
    CONSTRAINT trailers_temperature_refrigeration_check CHECK (
        has_refrigeration OR (temperature_min IS NULL AND temperature_max IS NULL)),
    FOREIGN KEY (company_id, office_id) REFERENCES offices (company_id, id)
);
CREATE UNIQUE INDEX trailers_company_plate_number_key ON trailers (company_id, plate_number)
    WHERE deleted_at IS NULL;
CREATE INDEX trailers_company_internal_seq_idx ON trailers (company_id, internal_seq, id);
CREATE INDEX trailers_company_status_idx ON trailers (company_id, status);

-- A driver + vehicle (+ optional trailer) working together. is_ready is stored
-- by the application (driver active with valid documents, vehicle and trailer
-- active); unassigned_at closes the assignment and keeps it as history.
CREATE TABLE transport_units (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id    uuid NOT NULL REFERENCES companies (id),
    driver_id     uuid NOT NULL,
    vehicle_id    uuid NOT NULL,
    trailer_id    uuid,
    is_ready      boolean NOT NULL DEFAULT false,
    assigned_at   timestamptz NOT NULL DEFAULT now(),
    unassigned_at timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz,
    CONSTRAINT transport_units_assignment_dates_check CHECK (unassigned_at >= assigned_at),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id),
    FOREIGN KEY (company_id, vehicle_id) REFERENCES vehicles (company_id, id),
    FOREIGN KEY (company_id, trailer_id) REFERENCES trailers (company_id, id)
);
-- A driver, vehicle or trailer is in at most one live unit at a time.
CREATE UNIQUE INDEX transport_units_active_driver_key ON transport_units (driver_id)
    WHERE unassigned_at IS NULL AND deleted_at IS NULL;
CREATE UNIQUE INDEX transport_units_active_vehicle_key ON transport_units (vehicle_id)
    WHERE unassigned_at IS NULL AND deleted_at IS NULL;
CREATE UNIQUE INDEX transport_units_active_trailer_key ON transport_units (trailer_id)
    WHERE unassigned_at IS NULL AND deleted_at IS NULL;
CREATE INDEX transport_units_company_ready_idx ON transport_units (company_id, is_ready);

------------------------------------------------------------------------------
-- Orders (stored; the rating's activity metric counts them)
------------------------------------------------------------------------------

CREATE TABLE orders (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id    uuid NOT NULL REFERENCES companies (id),
    driver_id     uuid,
    vehicle_id    uuid,
    trailer_id    uuid,
    order_number  varchar(50),
    order_date    date NOT NULL,
    status        text NOT NULL DEFAULT 'planned'
                  CHECK (status IN ('planned', 'in_progress', 'completed', 'cancelled')),
    customer_name varchar(200),
    origin        text,
    destination   text,
    price         numeric(10,2) CHECK (price >= 0),
    currency      char(3) NOT NULL DEFAULT 'CZK' CHECK (currency ~ '^[A-Z]{3}$'),
    notes         text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    deleted_at    timestamptz,
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id),
    FOREIGN KEY (company_id, vehicle_id) REFERENCES vehicles (company_id, id),
    FOREIGN KEY (company_id, trailer_id) REFERENCES trailers (company_id, id)
);
CREATE UNIQUE INDEX orders_company_order_number_key ON orders (company_id, order_number)
    WHERE deleted_at IS NULL;
-- Activity metric: a driver's orders in a month ...
CREATE INDEX orders_company_driver_date_idx ON orders (company_id, driver_id, order_date);
-- ... and whether the company has any orders in that month at all; also the
-- default order of a future order list.
CREATE INDEX orders_company_date_idx ON orders (company_id, order_date, id);
CREATE INDEX orders_company_status_idx ON orders (company_id, status);

------------------------------------------------------------------------------
-- Audit log (append-only)
------------------------------------------------------------------------------

-- user_id has no foreign key on purpose: the log must outlive any change to
-- users, and system jobs write rows without a user. user_name keeps the
-- display name as it was at the time.
CREATE TABLE audit_logs (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies (id),
    entity_type text NOT NULL CHECK (entity_type IN (
                    'driver', 'document', 'document_file', 'finance_transaction', 'penalty',
                    'finance_period', 'rating_config', 'company', 'user', 'office',
                    'vehicle', 'trailer', 'transport_unit', 'order')),
    entity_id   uuid NOT NULL,
    user_id     uuid,
    user_name   text,
    action      varchar(50) NOT NULL, -- created, updated, deleted, document.uploaded, penalty.disputed, ...
    old_values  jsonb, -- only the changed fields
    new_values  jsonb,
    ip_address  text,
    user_agent  text,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_logs_company_created_at_idx ON audit_logs (company_id, created_at DESC, id);
CREATE INDEX audit_logs_company_entity_idx ON audit_logs (company_id, entity_type, entity_id);
CREATE INDEX audit_logs_company_user_idx ON audit_logs (company_id, user_id);

------------------------------------------------------------------------------
-- Finance: periods, transactions, penalties, aggregates
------------------------------------------------------------------------------

-- Period totals are sums of many numeric(10,2) amounts and can exceed the
-- 99,999,999.99 that numeric(10,2) holds, so they are numeric(12,2); a single
-- amount stays numeric(10,2).
CREATE TABLE finance_periods (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id         uuid NOT NULL REFERENCES companies (id),
    driver_id          uuid NOT NULL,
    period_type        text NOT NULL DEFAULT 'monthly'
                       CHECK (period_type IN ('weekly', 'monthly', 'quarterly')),
    period_start       date NOT NULL,
    period_end         date NOT NULL,
    status             text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed', 'paid')),
    total_earnings     numeric(12,2) NOT NULL DEFAULT 0, -- sum of positive amounts
    total_deductions   numeric(12,2) NOT NULL DEFAULT 0, -- absolute sum of negative amounts
    net_amount         numeric(12,2) NOT NULL DEFAULT 0, -- earnings - deductions
    currency           char(3) NOT NULL DEFAULT 'CZK' CHECK (currency ~ '^[A-Z]{3}$'),
    transactions_count integer NOT NULL DEFAULT 0 CHECK (transactions_count >= 0),
    closed_at          timestamptz,
    closed_by          uuid REFERENCES users (id),
    paid_at            timestamptz,
    paid_by            uuid REFERENCES users (id),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id),
    -- Also serves the period list (driver, then period_start for the year filter).
    CONSTRAINT finance_periods_driver_period_key
        UNIQUE (company_id, driver_id, period_start, period_end, period_type),
    CONSTRAINT finance_periods_dates_check CHECK (period_end >= period_start),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id)
);

CREATE TABLE finance_transactions (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies (id),
    driver_id        uuid NOT NULL,
    period_id        uuid,
    transaction_type varchar(50) NOT NULL CHECK (transaction_type IN (
                         'base_salary', 'overtime', 'bonus', 'penalty', 'deduction',
                         'business_trip', 'allowance', 'reimbursement')),
    category         varchar(50), -- salary, business_trip, performance_bonus, damage_fine, penalty, ...
    amount           numeric(10,2) NOT NULL, -- positive: earning; negative: deduction or penalty
    currency         char(3) NOT NULL DEFAULT 'CZK' CHECK (currency ~ '^[A-Z]{3}$'),
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'approved', 'paid', 'cancelled', 'disputed')),
    transaction_date date NOT NULL,
    payment_date     date,
    description      text,
    reference        varchar(100), -- external reference
    order_id         uuid,
    created_by       uuid REFERENCES users (id),
    approved_by      uuid REFERENCES users (id),
    approved_at      timestamptz,
    paid_by          uuid REFERENCES users (id),
    paid_at          timestamptz,
    metadata         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    deleted_at       timestamptz,
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id),
    FOREIGN KEY (company_id, period_id) REFERENCES finance_periods (company_id, id),
    FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);
-- Default list order: transaction_date desc, created_at desc, id.
CREATE INDEX finance_transactions_list_idx
    ON finance_transactions (company_id, driver_id, transaction_date DESC, created_at DESC, id DESC);
-- Period totals are recomputed from the period's transactions.
CREATE INDEX finance_transactions_period_idx ON finance_transactions (period_id);
CREATE INDEX finance_transactions_type_idx ON finance_transactions (company_id, driver_id, transaction_type);
CREATE INDEX finance_transactions_status_idx ON finance_transactions (company_id, driver_id, status);

-- Each penalty owns exactly one finance record (transaction_type penalty,
-- amount = -penalty amount), created in the same database transaction.
CREATE TABLE penalties (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id           uuid NOT NULL REFERENCES companies (id),
    driver_id            uuid NOT NULL,
    finance_id           uuid NOT NULL,
    penalty_type         varchar(50) NOT NULL
                         CHECK (penalty_type IN ('speeding', 'accident', 'damage', 'late_delivery', 'other')),
    severity             text NOT NULL DEFAULT 'minor'
                         CHECK (severity IN ('minor', 'moderate', 'major', 'critical')),
    amount               numeric(10,2) NOT NULL CHECK (amount >= 0),
    currency             char(3) NOT NULL DEFAULT 'CZK' CHECK (currency ~ '^[A-Z]{3}$'),
    incident_date        date NOT NULL,
    location             text,
    description          text NOT NULL,
    evidence             jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(evidence) = 'array'), -- [{type, url}]
    status               text NOT NULL DEFAULT 'pending'
                         CHECK (status IN ('pending', 'accepted', 'disputed', 'resolved', 'cancelled')),
    dispute_reason       text,
    dispute_submitted_at timestamptz,
    resolution           text,
    resolved_by          uuid REFERENCES users (id),
    resolved_at          timestamptz,
    metadata             jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_by           uuid REFERENCES users (id),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    deleted_at           timestamptz,
    CONSTRAINT penalties_finance_id_key UNIQUE (finance_id),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id),
    FOREIGN KEY (company_id, finance_id) REFERENCES finance_transactions (company_id, id)
);
-- Default list order: incident_date desc, then id.
CREATE INDEX penalties_list_idx ON penalties (company_id, driver_id, incident_date DESC, id DESC);
CREATE INDEX penalties_status_idx ON penalties (company_id, driver_id, status);

-- Optional cache of the aggregates endpoint; always recomputable from
-- finance_transactions. Lifetime sums outgrow numeric(10,2), hence (12,2).
CREATE TABLE finance_aggregates (
    id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id           uuid NOT NULL REFERENCES companies (id),
    driver_id            uuid NOT NULL,
    agg_type             text NOT NULL CHECK (agg_type IN ('mtd', 'ytd', 'lifetime')),
    reference_date       date NOT NULL,
    total_earnings       numeric(12,2) NOT NULL DEFAULT 0,
    total_deductions     numeric(12,2) NOT NULL DEFAULT 0,
    total_penalties      numeric(12,2) NOT NULL DEFAULT 0,
    penalties_count      integer NOT NULL DEFAULT 0 CHECK (penalties_count >= 0),
    avg_monthly_earnings numeric(12,2) NOT NULL DEFAULT 0,
    currency             char(3) NOT NULL DEFAULT 'CZK' CHECK (currency ~ '^[A-Z]{3}$'),
    -- ytd: months_worked, highest_month, lowest_month; lifetime: employment_months, first_transaction
    metadata             jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    calculated_at        timestamptz NOT NULL DEFAULT now(),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT finance_aggregates_driver_key UNIQUE (company_id, driver_id, agg_type, reference_date),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id)
);

------------------------------------------------------------------------------
-- Rating
------------------------------------------------------------------------------

CREATE TABLE rating_configs (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies (id),
    metric_name varchar(50) NOT NULL CHECK (metric_name IN (
                    'document_expiration', 'penalties_count', 'penalties_amount',
                    'profile_completeness', 'document_upload_timeliness', 'activity')),
    -- The sum of 100 over a company's six rows is checked by the application,
    -- which updates several rows at once.
    weight      numeric(5,2) NOT NULL CHECK (weight BETWEEN 0 AND 100),
    is_enabled  boolean NOT NULL DEFAULT true,
    thresholds  jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(thresholds) = 'object'),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rating_configs_company_metric_key UNIQUE (company_id, metric_name)
);

-- Every new company starts with the default rating configuration.
-- +goose StatementBegin
CREATE FUNCTION konvoj_create_default_rating_configs() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO rating_configs (company_id, metric_name, weight, is_enabled, thresholds)
    VALUES
        (NEW.id, 'document_expiration',        30, true, '{"warning_days": 30}'),
        (NEW.id, 'penalties_count',            20, true, '{"max_count": 5}'),
        (NEW.id, 'penalties_amount',           20, true, '{"max_amount": 10000}'),
        (NEW.id, 'profile_completeness',       10, true, '{"required_fields": 20}'),
        (NEW.id, 'document_upload_timeliness', 10, true, '{"avg_days": 7}'),
        (NEW.id, 'activity',                   10, true, '{"min_orders_per_month": 8}');
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER companies_default_rating_configs
    AFTER INSERT ON companies
    FOR EACH ROW EXECUTE FUNCTION konvoj_create_default_rating_configs();

-- One snapshot per driver and month; recalculation replaces it.
CREATE TABLE rating_snapshots (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id      uuid NOT NULL REFERENCES companies (id),
    driver_id       uuid NOT NULL,
    rating_period   date NOT NULL, -- first day of the month
    total_score     numeric(5,2) NOT NULL CHECK (total_score BETWEEN 0 AND 100),
    components      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(components) = 'object'),
    rank_percentile integer CHECK (rank_percentile BETWEEN 1 AND 100),
    previous_score  numeric(5,2) CHECK (previous_score BETWEEN 0 AND 100),
    calculated_at   timestamptz NOT NULL DEFAULT now(),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rating_snapshots_driver_period_key UNIQUE (driver_id, rating_period),
    CONSTRAINT rating_snapshots_period_check CHECK (rating_period = date_trunc('month', rating_period)::date),
    FOREIGN KEY (company_id, driver_id) REFERENCES drivers (company_id, id)
);
-- Rank percentile: all drivers of a company in a month, by score.
CREATE INDEX rating_snapshots_company_period_score_idx
    ON rating_snapshots (company_id, rating_period, total_score DESC);

CREATE TABLE rating_components (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    snapshot_id      uuid NOT NULL REFERENCES rating_snapshots (id) ON DELETE CASCADE,
    metric_name      varchar(50) NOT NULL CHECK (metric_name IN (
                         'document_expiration', 'penalties_count', 'penalties_amount',
                         'profile_completeness', 'document_upload_timeliness', 'activity')),
    raw_value        numeric(14,4),
    normalized_score numeric(5,2) CHECK (normalized_score BETWEEN 0 AND 100),
    weight           numeric(5,2) CHECK (weight BETWEEN 0 AND 100),
    contribution     numeric(7,4), -- normalized_score * weight / 100
    metadata         jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rating_components_snapshot_metric_key UNIQUE (snapshot_id, metric_name)
);

------------------------------------------------------------------------------
-- updated_at triggers
------------------------------------------------------------------------------

CREATE TRIGGER companies_touch_updated_at BEFORE UPDATE ON companies
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER offices_touch_updated_at BEFORE UPDATE ON offices
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER users_touch_updated_at BEFORE UPDATE ON users
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER drivers_touch_updated_at BEFORE UPDATE ON drivers
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER driver_documents_touch_updated_at BEFORE UPDATE ON driver_documents
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER document_files_touch_updated_at BEFORE UPDATE ON document_files
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER vehicles_touch_updated_at BEFORE UPDATE ON vehicles
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER trailers_touch_updated_at BEFORE UPDATE ON trailers
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER transport_units_touch_updated_at BEFORE UPDATE ON transport_units
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER orders_touch_updated_at BEFORE UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER finance_periods_touch_updated_at BEFORE UPDATE ON finance_periods
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER finance_transactions_touch_updated_at BEFORE UPDATE ON finance_transactions
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER penalties_touch_updated_at BEFORE UPDATE ON penalties
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER finance_aggregates_touch_updated_at BEFORE UPDATE ON finance_aggregates
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER rating_configs_touch_updated_at BEFORE UPDATE ON rating_configs
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();
CREATE TRIGGER rating_snapshots_touch_updated_at BEFORE UPDATE ON rating_snapshots
    FOR EACH ROW EXECUTE FUNCTION konvoj_touch_updated_at();

-- +goose Down

-- Children before parents; triggers and indexes go with their tables.
DROP TABLE IF EXISTS rating_components;
DROP TABLE IF EXISTS rating_snapshots;
DROP TRIGGER IF EXISTS companies_default_rating_configs ON companies;
DROP TABLE IF EXISTS rating_configs;
DROP TABLE IF EXISTS finance_aggregates;
DROP TABLE IF EXISTS penalties;
DROP TABLE IF EXISTS finance_transactions;
DROP TABLE IF EXISTS finance_periods;
DROP TABLE IF EXISTS audit_logs;
DROP TABLE IF EXISTS orders;
DROP TABLE IF EXISTS transport_units;
DROP TABLE IF EXISTS trailers;
DROP TABLE IF EXISTS vehicles;
DROP TABLE IF EXISTS document_files;
DROP TABLE IF EXISTS driver_documents;
DROP TABLE IF EXISTS drivers;
DROP TABLE IF EXISTS users;
DROP TABLE IF EXISTS offices;
DROP TABLE IF EXISTS companies;

DROP FUNCTION IF EXISTS konvoj_create_default_rating_configs();
DROP FUNCTION IF EXISTS konvoj_touch_updated_at();
DROP FUNCTION IF EXISTS konvoj_unaccent(text);

-- Created by the Up section (IF NOT EXISTS); nothing else in this database
-- uses them.
DROP EXTENSION IF EXISTS pg_trgm;
DROP EXTENSION IF EXISTS unaccent;
