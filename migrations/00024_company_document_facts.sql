-- A company's document facts, kept as one row (docs/performance.md,
-- "A company's document facts").
--
-- Every list, driver read, document read and rating read needs the same
-- facts about the company's document types: the required types (for every
-- driver, for drivers from outside the EU, EEA and Switzerland, and per
-- tag), the validity chains and the retired custom types. Worked out from
-- document_rules and document_types on every statement they cost about 4 ms
-- of execution and 2 ms of planning, as much as the rest of the drivers
-- list. They change only when a company's types or rules change, so
-- triggers on those tables keep them here, in the same transaction as the
-- change.

-- +goose Up
CREATE TABLE company_document_facts (
    company_id      uuid PRIMARY KEY REFERENCES companies (id) ON DELETE CASCADE,
    -- Required of every driver, and of a driver from outside the EU.
    required        text[] NOT NULL,
    required_non_eu text[] NOT NULL,
    -- The tag groups' rules side by side: required_for 'tag:<tag>' and type.
    tag_rule_for    text[] NOT NULL,
    tag_rule_types  text[] NOT NULL,
    -- konvoj_document_chains; capped: the types with a cap; chained: those
    -- and every type that caps one.
    chains          jsonb NOT NULL,
    capped          text[] NOT NULL,
    chained         text[] NOT NULL,
    retired         text[] NOT NULL
);
SELECT konvoj_enable_tenant_rls('company_document_facts');

-- Works a company's facts out again. The row is locked before the types
-- and rules are read, so that of two transactions changing one company's
-- types at once, the second reads after the first has committed and
-- neither overwrites the other's change with facts that miss it.
-- +goose StatementBegin
CREATE FUNCTION konvoj_refresh_document_facts(company uuid) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM company_document_facts WHERE company_id = company FOR UPDATE;
    INSERT INTO company_document_facts AS f
        (company_id, required, required_non_eu, tag_rule_for, tag_rule_types, chains, capped, chained, retired)
    SELECT company, konvoj_required_document_types(company, false), konvoj_required_document_types(company, true),
        tr.rule_for, tr.rule_types, ch.chains,
        ARRAY(SELECT jsonb_object_keys(ch.chains)),
        ARRAY(SELECT jsonb_object_keys(ch.chains) UNION
            SELECT a FROM jsonb_each(ch.chains) e, jsonb_array_elements(e.value) st, jsonb_array_elements_text(st) a),
        konvoj_retired_document_types(company)
    FROM (
        SELECT coalesce(array_agg(r.required_for ORDER BY r.ord), '{}') AS rule_for,
            coalesce(array_agg(r.document_type ORDER BY r.ord), '{}') AS rule_types
        FROM konvoj_document_rules(company) r
        WHERE r.required AND r.required_for LIKE 'tag:%'
    ) tr, (SELECT konvoj_document_chains(company) AS chains) ch
    ON CONFLICT (company_id) DO UPDATE SET
        required = EXCLUDED.required, required_non_eu = EXCLUDED.required_non_eu,
        tag_rule_for = EXCLUDED.tag_rule_for, tag_rule_types = EXCLUDED.tag_rule_types,
        chains = EXCLUDED.chains, capped = EXCLUDED.capped, chained = EXCLUDED.chained,
        retired = EXCLUDED.retired;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION konvoj_document_facts_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'companies' THEN
        PERFORM konvoj_refresh_document_facts(NEW.id);
        RETURN NULL;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        PERFORM konvoj_refresh_document_facts(OLD.company_id);
    END IF;
    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.company_id IS DISTINCT FROM OLD.company_id) THEN
        PERFORM konvoj_refresh_document_facts(NEW.company_id);
    END IF;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER companies_document_facts AFTER INSERT ON companies
    FOR EACH ROW EXECUTE FUNCTION konvoj_document_facts_changed();
CREATE TRIGGER document_types_document_facts AFTER INSERT OR UPDATE OR DELETE ON document_types
    FOR EACH ROW EXECUTE FUNCTION konvoj_document_facts_changed();
CREATE TRIGGER document_rules_document_facts AFTER INSERT OR UPDATE OR DELETE ON document_rules
    FOR EACH ROW EXECUTE FUNCTION konvoj_document_facts_changed();

SELECT konvoj_refresh_document_facts(id) FROM companies;

-- +goose Down
DROP TRIGGER document_rules_document_facts ON document_rules;
DROP TRIGGER document_types_document_facts ON document_types;
DROP TRIGGER companies_document_facts ON companies;
DROP FUNCTION konvoj_document_facts_changed();
DROP FUNCTION konvoj_refresh_document_facts(uuid);
DROP TABLE company_document_facts;
