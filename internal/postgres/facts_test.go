package postgres_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestDocumentFactsFollowChanges: a company's row of company_document_facts
// (migrations/00024_company_document_facts.sql) exists from its creation
// and follows every change of its document types and rules, also when two
// transactions change the same company's types at once: neither change is
// lost.
func TestDocumentFactsFollowChanges(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	var company uuid.UUID
	if err := db.QueryRow(ctx, `INSERT INTO companies (name) VALUES ('Facts') RETURNING id`).Scan(&company); err != nil {
		t.Fatal(err)
	}
	type facts struct {
		required, requiredNonEU, tagFor, tagTypes, capped, chained, retired []string
	}
	read := func() facts {
		t.Helper()
		var f facts
		err := db.QueryRow(ctx, `SELECT required, required_non_eu, tag_rule_for, tag_rule_types, capped, chained, retired
			FROM company_document_facts WHERE company_id = $1`, company).
			Scan(&f.required, &f.requiredNonEU, &f.tagFor, &f.tagTypes, &f.capped, &f.chained, &f.retired)
		if err != nil {
			t.Fatalf("read facts: %v", err)
		}
		return f
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, append([]any{company}, args...)...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}

	f := read()
	if want := []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"}; !slices.Equal(f.required, want) {
		t.Errorf("a new company requires %v, want %v", f.required, want)
	}
	if !slices.Equal(f.capped, []string{"work_permit"}) || len(f.retired) != 0 {
		t.Errorf("a new company: capped %v retired %v, want [work_permit] and none", f.capped, f.retired)
	}

	exec(`INSERT INTO document_rules (company_id, document_type, required, required_for, lead_days)
		VALUES ($1, 'adr_certificate', true, 'tag:adr', 30), ($1, 'work_permit', true, 'non_eu', 90)`)
	f = read()
	if !slices.Equal(f.tagFor, []string{"tag:adr"}) || !slices.Equal(f.tagTypes, []string{"adr_certificate"}) {
		t.Errorf("tag rules %v %v, want [tag:adr] [adr_certificate]", f.tagFor, f.tagTypes)
	}
	if !slices.Contains(f.requiredNonEU, "work_permit") || slices.Contains(f.required, "work_permit") {
		t.Errorf("work_permit required of non-EU drivers only: required %v, non-EU %v", f.required, f.requiredNonEU)
	}
	exec(`DELETE FROM document_rules WHERE company_id = $1 AND document_type = 'adr_certificate'`)
	if f = read(); len(f.tagFor) != 0 {
		t.Errorf("tag rules %v after the rule was deleted, want none", f.tagFor)
	}

	// Two transactions each add a capped custom type at the same moment.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, code := range []string{"attestation_a", "attestation_b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.Exec(ctx, `INSERT INTO document_types (company_id, code, names, capped_by)
				VALUES ($1, $2, '{"en": "x"}', 'residence_permit')`, company, code)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f = read()
	for _, code := range []string{"attestation_a", "attestation_b", "work_permit"} {
		if !slices.Contains(f.capped, code) {
			t.Errorf("capped %v lacks %s", f.capped, code)
		}
	}
	exec(`UPDATE document_types SET retired = true WHERE company_id = $1 AND code = 'attestation_a'`)
	if f = read(); !slices.Equal(f.retired, []string{"attestation_a"}) || slices.Contains(f.capped, "attestation_a") {
		t.Errorf("after retiring attestation_a: retired %v capped %v", f.retired, f.capped)
	}
}
