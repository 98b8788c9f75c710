package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// importedDriver is a driver the test reads back.
type importedDriver struct {
	id, number, hire, location string
}

func readDriver(t *testing.T, env *webtest.Env, company uuid.UUID, email string) importedDriver {
	t.Helper()
	var d importedDriver
	err := env.DB.QueryRow(context.Background(), `SELECT id::text, internal_number, coalesce(hire_date::text, ''), coalesce(work_location, '')
		FROM drivers WHERE company_id = $1 AND lower(email) = lower($2) AND deleted_at IS NULL`, company, email).
		Scan(&d.id, &d.number, &d.hire, &d.location)
	if err != nil {
		t.Fatalf("driver %s: %v", email, err)
	}
	return d
}

// changeOf is the change of a row, failing the test without one.
func changeOf(t *testing.T, im importResult, row int) rowChange {
	t.Helper()
	for _, c := range im.Changes {
		if c.Row == row {
			return c
		}
	}
	t.Fatalf("no change of row %d in %+v", row, im.Changes)
	return rowChange{}
}

// An import says, per row, what it creates, updates (each changed field,
// old and new, the documents' too) and leaves unchanged, in a dry run as
// in a real one; a row whose number is one driver's and e-mail another's
// is an error naming both. All or nothing (the default) then changes
// nothing; valid_rows applies the other rows, and its counts are what it
// applied.
func TestImportChanges(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Změny s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)
	var im importResult
	sendImport(t, hr, "start.csv", []byte("first_name,last_name,email,hire_date\n"+
		"Jan,Novák,jan@zmeny.test,2020-01-01\nEva,Malá,eva@zmeny.test,2021-05-01\nPetr,Dlouhý,petr@zmeny.test,2022-02-01\n"),
		field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Created != 3 || len(im.Errors) != 0 || len(im.Changes) != 3 || changeOf(t, im, 2).Action != "create" ||
		changeOf(t, im, 2).DriverID == nil {
		t.Fatalf("start %+v", im)
	}
	jan, eva, petr := readDriver(t, env, company, "jan@zmeny.test"), readDriver(t, env, company, "eva@zmeny.test"),
		readDriver(t, env, company, "petr@zmeny.test")
	if *changeOf(t, im, 2).DriverID != jan.id {
		t.Errorf("the created driver %s, want %s", *changeOf(t, im, 2).DriverID, jan.id)
	}

	file := []byte("internal_number;first_name;last_name;email;hire_date;drivers_license_number\n" +
		jan.number + ";;;;1. 4. 2021;EL123\n" + // 2: Jan's hire date and licence
		eva.number + ";;Malá;;;\n" + // 3: Eva unchanged
		";Nový;Řidič;novy@zmeny.test;2026-01-05;\n" + // 4: a new driver
		petr.number + ";;;eva@zmeny.test;;\n") // 5: Petr's number, Eva's e-mail
	sendImport(t, hr, "zmeny.csv", file).Expect(http.StatusCreated).Decode(&im)
	if !im.DryRun || im.Mode != "all_or_nothing" || len(im.Changes) != 3 {
		t.Fatalf("dry run %+v", im)
	}
	up := changeOf(t, im, 2)
	if up.Action != "update" || up.DriverID == nil || *up.DriverID != jan.id || len(up.Fields) != 2 ||
		up.Fields["hire_date"].Old != "2020-01-01" || up.Fields["hire_date"].New != "2021-04-01" ||
		up.Fields["drivers_license_number"].Old != nil || up.Fields["drivers_license_number"].New != "EL123" {
		t.Errorf("update %+v", up)
	}
	if c := changeOf(t, im, 3); c.Action != "unchanged" || c.DriverID == nil || *c.DriverID != eva.id || len(c.Fields) != 0 {
		t.Errorf("unchanged %+v", c)
	}
	if c := changeOf(t, im, 4); c.Action != "create" || c.DriverID != nil {
		t.Errorf("create in a dry run %+v", c)
	}
	if len(im.Errors) != 1 || im.Errors[0].Row != 5 || im.Errors[0].Field != "internal_number" {
		t.Fatalf("errors %+v", im.Errors)
	}
	for _, want := range []string{petr.number, "Petr Dlouhý", "eva@zmeny.test", "Eva Malá (" + eva.number + ")"} {
		if !strings.Contains(im.Errors[0].Message, want) {
			t.Errorf("the error %q does not name %q", im.Errors[0].Message, want)
		}
	}
	// What all or nothing would do, the erroneous row included (as before).
	if im.Created != 1 || im.Updated != 2 || im.Unchanged != 1 {
		t.Errorf("dry run counts %+v", im)
	}

	// All or nothing, the default: the row with an error stops the file.
	sendImport(t, hr, "zmeny.csv", file, field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Mode != "all_or_nothing" || len(im.Errors) != 1 {
		t.Fatalf("all or nothing %+v", im)
	}
	if got := readDriver(t, env, company, "jan@zmeny.test"); got.hire != "2020-01-01" {
		t.Errorf("all or nothing with an error changed the hire date to %s", got.hire)
	}

	// The valid rows: 2, 3 and 4 applied, 5 reported.
	sendImport(t, hr, "zmeny.csv", file, field("dry_run", "false"), field("mode", "valid_rows")).Expect(http.StatusCreated).Decode(&im)
	if im.Mode != "valid_rows" || im.Rows != 4 || im.Created != 1 || im.Updated != 1 || im.Unchanged != 1 ||
		len(im.Errors) != 1 || im.Errors[0].Row != 5 || len(im.Changes) != 3 {
		t.Fatalf("valid rows %+v", im)
	}
	if got := readDriver(t, env, company, "jan@zmeny.test"); got.hire != "2021-04-01" {
		t.Errorf("Jan's hire date %s", got.hire)
	}
	novy := readDriver(t, env, company, "novy@zmeny.test")
	if c := changeOf(t, im, 4); c.DriverID == nil || *c.DriverID != novy.id {
		t.Errorf("the new driver's change %+v, id %s", c, novy.id)
	}
	if got := readDriver(t, env, company, "petr@zmeny.test"); got != petr {
		t.Errorf("the skipped row changed Petr: %+v", got)
	}
	var completed string
	if err := env.DB.QueryRow(context.Background(), `SELECT new_values::text FROM audit_logs
		WHERE company_id = $1 AND action = 'import.completed' AND new_values->>'import_id' = $2`, company, im.ID).Scan(&completed); err != nil ||
		!strings.Contains(completed, `"skipped": 1`) || !strings.Contains(completed, `"created": 1`) {
		t.Errorf("import.completed %s %v", completed, err)
	}
	hr.Get("/api/v0/imports/" + im.ID).Expect(http.StatusOK).Decode(&im)
	if im.Mode != "valid_rows" || len(im.Changes) != 3 || changeOf(t, im, 2).Fields["hire_date"].New != "2021-04-01" {
		t.Errorf("read back %+v", im)
	}

	// A dry run of valid_rows counts what it would apply.
	sendImport(t, hr, "zmeny.csv", file, field("mode", "valid_rows")).Expect(http.StatusCreated).Decode(&im)
	if im.Created != 0 || im.Updated != 0 || im.Unchanged != 3 || len(im.Errors) != 1 {
		t.Errorf("valid rows dry run after the import %+v", im)
	}
	body := sendImport(t, hr, "zmeny.csv", file, field("mode", "some")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if !strings.Contains(fmt.Sprint(body["errors"]), "mode") {
		t.Errorf("a bad mode: %v", body)
	}
}

// Every row error says what is wrong with the cell, naming its text, and
// what to write instead: no codes of standards.
func TestImportMessagesInWords(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	hr := env.As(env.Company("Slova s.r.o.", "free"), auth.RoleHRManager)
	file := []byte("first_name;last_name;email;citizenship;hire_date;status;contract_indefinite;bank_country;drivers_license_valid_until\n" +
		"Ion;Popescu;ion@slova.test;Rumunsko;31. 2. 2024;Létající;možná;Narnie;zítra\n" +
		"Ana;Pop;neni-email;RO;;;;;\n")
	var im importResult
	sendImport(t, hr, "slova.csv", file).Expect(http.StatusCreated).Decode(&im)
	got := map[string]string{}
	for _, e := range im.Errors {
		got[fmt.Sprintf("%d %s", e.Row, e.Field)] = e.Message
	}
	for key, want := range map[string]string{
		"2 citizenship":                 "Unknown country: Rumunsko; use a two-letter code such as RO.",
		"2 bank_country":                "Unknown country: Narnie; use a two-letter code such as CZ.",
		"2 hire_date":                   "The hire date “31. 2. 2024” is not a date; write it as 1. 3. 2026 or 2026-03-01.",
		"2 status":                      "Unknown status: Létající; use one of: Active, On leave, Inactive, Terminated.",
		"2 contract_indefinite":         "Write yes or no for the contract for an indefinite period, not “možná”.",
		"2 drivers_license_valid_until": "The end of validity “zítra” is not a date; write it as 1. 3. 2026 or 2026-03-01.",
		"3 email":                       "“neni-email” is not an e-mail address; write it as name@example.com.",
	} {
		if got[key] != want {
			t.Errorf("%s: %q, want %q", key, got[key], want)
		}
	}
	for _, e := range im.Errors {
		if strings.Contains(e.Message, "ISO") || strings.Contains(e.Message, "YYYY") {
			t.Errorf("row %d %s speaks in codes: %q", e.Row, e.Field, e.Message)
		}
	}
}

// Two imports of one company at once, each creating the same drivers and
// applying its valid rows: no driver is created twice, and each import
// either applies its whole file or, failing, changes nothing.
func TestImportsAtOnceCreateNoDuplicates(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Souběh s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)
	var sb strings.Builder
	sb.WriteString("first_name,last_name,email\n")
	for i := range 200 {
		fmt.Fprintf(&sb, "Řidič,Číslo%d,ridic%d@soubeh.test\n", i, i)
	}
	sb.WriteString("Bez,E-mailu,\n") // an error: valid_rows applies the rest
	file := []byte(sb.String())
	var wg sync.WaitGroup
	answers := make([]*webtest.Response, 2)
	for i := range answers {
		wg.Go(func() {
			answers[i] = sendImport(t, hr, "soubeh.csv", file, field("dry_run", "false"), field("mode", "valid_rows"))
		})
	}
	wg.Wait()
	var drivers, twice int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*), count(*) - count(DISTINCT lower(email)) FROM drivers WHERE company_id = $1`,
		company).Scan(&drivers, &twice); err != nil {
		t.Fatal(err)
	}
	if drivers != 200 || twice != 0 {
		t.Errorf("%d drivers, %d e-mails twice; want 200 once each", drivers, twice)
	}
	created := 0
	for _, a := range answers {
		switch a.Status {
		case http.StatusCreated:
			var im importResult
			a.Decode(&im)
			if im.Created+im.Unchanged != 200 || len(im.Errors) != 1 {
				t.Errorf("an import answered %+v", im)
			}
			created += im.Created
		case http.StatusConflict:
			// The other one created the drivers first; this one changed nothing.
		default:
			t.Errorf("an import answered %d %s", a.Status, a.Body)
		}
	}
	if created != 200 {
		t.Errorf("the imports say they created %d drivers", created)
	}
}
