package e2e

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/internal/storage"
)

// seedDriver is a driver the tests start with; Docs maps document types to
// their validity end in days from today (a file is uploaded for each).
type seedDriver struct {
	First, Last, Email, Citizenship, Status, Office, Hired string
	Docs                                                   map[string]int
}

// ready are the default required documents, valid for a long time.
func ready() map[string]int {
	return map[string]int{"passport": 900, "drivers_license": 1200, "tachograph_card": 700, "code_95": 1500, "medical_examination": 300}
}

// seedDrivers creates offices and drivers (package fixtures) and uploads
// real files through the same documents service as the app (in this
// process, on the app's database and file store), so the list shows every
// document status. It returns the
// drivers' ids by e-mail.
func (a *App) seedDrivers(t *testing.T, company uuid.UUID, list []seedDriver) map[string]uuid.UUID {
	t.Helper()
	ctx := context.Background()
	offices := map[string]uuid.UUID{
		"Praha":   fixtures.Office(t, a.DB, company, "Praha", fixtures.City("Praha", "CZ"), fixtures.Headquarters()),
		"Ostrava": fixtures.Office(t, a.DB, company, "Ostrava", fixtures.City("Ostrava", "CZ")),
	}

	svc, hr := a.seedServices(t, company)
	today := companyNow()
	ids := map[string]uuid.UUID{}
	for _, s := range list {
		opts := []fixtures.DriverOption{fixtures.Name(s.First, s.Last), fixtures.Email(s.Email), fixtures.HireDate(s.Hired)}
		if s.Office != "" {
			opts = append(opts, fixtures.InOffice(offices[s.Office]))
		}
		if s.Citizenship != "" {
			opts = append(opts, fixtures.Citizenship(s.Citizenship))
		}
		if s.Status != "" {
			opts = append(opts, fixtures.Status(s.Status))
		}
		id := fixtures.Driver(t, a.DB, company, opts...)
		ids[s.Email] = id
		if len(s.Docs) == 0 {
			continue
		}
		list, err := svc.Documents.Read(ctx, hr, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range list {
			days, ok := s.Docs[doc.Type]
			if !ok {
				continue
			}
			upload(t, svc, hr, doc.ID, doc.Type, s.Email, fmt.Sprintf("%s-%d", doc.Type[:2], 1000+len(ids)), today.AddDate(0, 0, days).Format(time.DateOnly))
		}
	}
	return ids
}

// seedServices are the app's services in this process, on the app's
// database and file store, with an HR manager of the company to act as.
func (a *App) seedServices(t *testing.T, company uuid.UUID) (services.Set, auth.Principal) {
	t.Helper()
	files, err := storage.NewLocal(a.Files)
	if err != nil {
		t.Fatal(err)
	}
	svc := services.New(a.DB, services.Options{Files: files, UploadMaxBytes: 10 << 20, CursorKey: []byte("seed")})
	hr, err := svc.Tenants.Principal(context.Background(), auth.Identity{Subject: "seed-hr", Email: "seed@acme.test",
		CompanyID: company.String(), Role: auth.RoleHRManager, FirstName: "Olga", LastName: "Seedová"})
	if err != nil {
		t.Fatal(err)
	}
	return svc, hr
}

// uploadDocument uploads a new version of a driver's document of the type,
// valid until the date (YYYY-MM-DD), as an HR manager.
func (a *App) uploadDocument(t *testing.T, company, driverID uuid.UUID, docType, validUntil string) {
	t.Helper()
	svc, hr := a.seedServices(t, company)
	list, err := svc.Documents.Read(context.Background(), hr, driverID)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range list {
		if doc.Type == docType {
			upload(t, svc, hr, doc.ID, docType, driverID.String(), "E2E-"+docType[:2], validUntil)
			return
		}
	}
	t.Fatalf("driver %s has no %s document", driverID, docType)
}

func upload(t *testing.T, svc services.Set, hr auth.Principal, docID uuid.UUID, docType, owner, number, validUntil string) {
	t.Helper()
	ctx := context.Background()
	until, err := time.Parse(time.DateOnly, validUntil)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(fmt.Sprintf("%%PDF-1.7\n%% %s of %s\n", docType, owner))
	mr := multipartFile(t, docType+".pdf", body, map[string]string{
		"number": number, "valid_from": until.AddDate(-2, 0, 0).Format(time.DateOnly), "valid_until": validUntil,
	})
	if _, err := svc.Documents.Upload(ctx, hr, uuid.Nil, docID, func() (*multipart.Reader, error) { return mr, nil }); err != nil {
		t.Fatalf("upload %s: %v", docType, err)
	}
}

// multipartFile is an upload body for documents.Service.Upload.
func multipartFile(t *testing.T, name string, content []byte, fields map[string]string) *multipart.Reader {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = w.WriteField(k, v)
	}
	fw, err := w.CreateFormFile("file", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	_ = w.Close()
	return multipart.NewReader(&body, w.Boundary())
}

// fleet is a small company's drivers with documents in every status.
var fleet = []seedDriver{
	{First: "Jan", Last: "Novák", Email: "jan.novak@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2019-04-01", Docs: ready()},
	{First: "Petra", Last: "Svobodová", Email: "petra@acme.test", Citizenship: "SK", Status: "on_leave", Office: "Ostrava", Hired: "2021-09-15",
		Docs: map[string]int{"passport": -12, "drivers_license": 400}},
	{First: "Tomáš", Last: "Dvořák", Email: "tomas@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2022-01-10",
		Docs: map[string]int{"passport": 5, "drivers_license": 800, "tachograph_card": 25, "code_95": 600, "medical_examination": 90}},
	{First: "Andrii", Last: "Shevchenko", Email: "andrii@acme.test", Citizenship: "UA", Office: "Ostrava", Hired: "2023-05-02",
		Docs: map[string]int{"passport": 1000, "work_permit": 9, "residence_permit": 200, "drivers_license": 900}},
	{First: "Piotr", Last: "Kowalski", Email: "piotr@acme.test", Citizenship: "PL", Office: "Praha", Hired: "2020-11-20", Docs: ready()},
	{First: "Ion", Last: "Popescu", Email: "ion@acme.test", Citizenship: "RO", Status: "inactive", Office: "Ostrava", Hired: "2018-02-01"},
	{First: "Marek", Last: "Černý", Email: "marek@acme.test", Citizenship: "CZ", Status: "terminated", Office: "Praha", Hired: "2017-06-01"},
	{First: "Lukáš", Last: "Procházka", Email: "lukas@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2024-03-01"},
	{First: "Ján", Last: "Baláž", Email: "jan.balaz@acme.test", Citizenship: "SK", Office: "Ostrava", Hired: "2021-01-04", Docs: ready()},
	{First: "Mihai", Last: "Ionescu", Email: "mihai@acme.test", Citizenship: "RO", Status: "on_leave", Office: "Praha", Hired: "2022-08-22",
		Docs: map[string]int{"passport": 30, "drivers_license": -3}},
}
