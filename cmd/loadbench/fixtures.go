package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/seed"
)

// dataSet is one scale set, seeded into a database of its own:
// companies × drivers per company, with transactions per driver.
type dataSet struct {
	Companies, Drivers, Transactions int
}

func (d dataSet) String() string {
	return fmt.Sprintf("%d × %s drivers, %d transactions each", d.Companies, thousands(d.Drivers), d.Transactions)
}

// database is the name of the set's own database.
func (d dataSet) database() string {
	return fmt.Sprintf("konvoj_bench_r%d_%dx%d_t%d", seed.ScaleRevision, d.Companies, d.Drivers, d.Transactions)
}

// parseSets reads "10x2000:500,1x20000:20" (companies x drivers per
// company : transactions per driver; the transactions part defaults to 500).
func parseSets(s string) ([]dataSet, error) {
	var out []dataSet
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		size, tx, hasTx := strings.Cut(part, ":")
		c, d, ok := strings.Cut(size, "x")
		set := dataSet{Transactions: 500}
		var err1, err2, err3 error
		set.Companies, err1 = strconv.Atoi(c)
		set.Drivers, err2 = strconv.Atoi(d)
		if hasTx {
			set.Transactions, err3 = strconv.Atoi(tx)
		}
		if !ok || err1 != nil || err2 != nil || err3 != nil || set.Companies < 1 || set.Drivers < 1 || set.Transactions < 1 {
			return nil, fmt.Errorf("data set %q: want COMPANIESxDRIVERS[:TRANSACTIONS], e.g. 10x2000:500", part)
		}
		out = append(out, set)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no data set in %q", s)
	}
	return out, nil
}

// withDatabase returns the URL with its database replaced.
func withDatabase(raw, db string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("database url: %w", err)
	}
	u.Path = "/" + db
	return u.String(), nil
}

// prepareSet creates the set's database when missing, migrates it and
// seeds it (konvoj seed-scale keeps companies already seeded). It returns
// the database's URL and how long the seed step took.
func prepareSet(ctx context.Context, adminURL, bin string, set dataSet) (string, time.Duration, error) {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", 0, fmt.Errorf("connect to %s to create the set's database: %w", redact(adminURL), err)
	}
	defer admin.Close(ctx)
	name := set.database()
	var exists bool
	if err := admin.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", 0, err
	}
	if !exists {
		if _, err := admin.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
			return "", 0, fmt.Errorf("create database %s: %w", name, err)
		}
	}
	dbURL, err := withDatabase(adminURL, name)
	if err != nil {
		return "", 0, err
	}
	env := append(os.Environ(), "DATABASE_URL="+dbURL)
	if out, err := command(env, bin, "migrate").CombinedOutput(); err != nil {
		return "", 0, fmt.Errorf("migrate %s: %v\n%s", name, err, out)
	}
	start := time.Now()
	out, err := command(env, bin, "seed-scale", "--companies", fmt.Sprint(set.Companies),
		"--drivers-per-company", fmt.Sprint(set.Drivers), "--transactions-per-driver", fmt.Sprint(set.Transactions)).CombinedOutput()
	if err != nil {
		return "", 0, fmt.Errorf("seed-scale: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(l, "seed-scale: ") && !strings.HasPrefix(l, "seed-scale:   ") {
			fmt.Println("  " + l)
		}
	}
	return dbURL, time.Since(start), nil
}

func command(env []string, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = env
	return c
}

// fixtures are the ids and the token the requests use.
type fixtures struct {
	company   uuid.UUID
	user      uuid.UUID
	token     string
	drivers   []uuid.UUID // every live driver of the company
	sample    []uuid.UUID // K drivers spread over the company: the fixed requests
	lastNames []string    // the sample's last names (search terms)
	docIDs    []uuid.UUID
	pastMonth string // YYYY-MM, the month before the current one
}

// loadFixtures picks the first scale company, K drivers spread evenly over
// it, and signs an admin token for a fixed user (so the user row the first
// request provisions is reused by every later run).
func loadFixtures(ctx context.Context, db *pgxpool.Pool, work string, k int) (fixtures, error) {
	var fx fixtures
	err := db.QueryRow(ctx, `SELECT id FROM companies WHERE settings->>'seed' = $1 ORDER BY name LIMIT 1`, seed.ScaleMarker).Scan(&fx.company)
	if err != nil {
		return fx, fmt.Errorf("find a scale company: %w", err)
	}
	type drv struct {
		ID   uuid.UUID
		Last string
	}
	rows, err := db.Query(ctx, `SELECT id, last_name FROM drivers WHERE company_id = $1 AND deleted_at IS NULL ORDER BY internal_seq`, fx.company)
	if err != nil {
		return fx, err
	}
	all, err := postgres.AppendRows(nil, rows, func(r pgx.Row, d *drv) error {
		return r.Scan(&d.ID, &d.Last)
	})
	if err != nil {
		return fx, err
	}
	if len(all) == 0 {
		return fx, fmt.Errorf("company %s has no drivers", fx.company)
	}
	for _, d := range all {
		fx.drivers = append(fx.drivers, d.ID)
	}
	k = min(k, len(all))
	for i := range k {
		d := all[i*len(all)/k]
		fx.sample = append(fx.sample, d.ID)
		fx.lastNames = append(fx.lastNames, d.Last)
	}
	rows, err = db.Query(ctx, `SELECT id FROM driver_documents WHERE company_id = $1 ORDER BY id LIMIT 2000`, fx.company)
	if err != nil {
		return fx, err
	}
	if fx.docIDs, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID]); err != nil {
		return fx, err
	}
	// A fixed user per company: uuid v5 of the company id.
	fx.user = uuid.NewSHA1(fx.company, []byte("loadbench"))
	now := time.Now()
	fx.token, err = jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": fx.user.String(), "email": "loadbench@scale.test", "iat": now.Unix(), "exp": now.Add(6 * time.Hour).Unix(),
		"app_metadata": map[string]any{"company_id": fx.company.String()}, "user_metadata": map[string]any{"role": "admin"},
	}).SignedString([]byte(secret))
	if err != nil {
		return fx, err
	}
	m := time.Date(now.UTC().Year(), now.UTC().Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
	fx.pastMonth = m.Format("2006-01")
	return fx, writeFixtureFiles(work, fx)
}

// writeFixtureFiles writes the id lists and a 1 MiB PDF the mix's wrk
// scripts read.
func writeFixtureFiles(work string, fx fixtures) error {
	lines := func(ids []uuid.UUID) []byte {
		var b strings.Builder
		for _, id := range ids {
			b.WriteString(id.String() + "\n")
		}
		return []byte(b.String())
	}
	if err := os.WriteFile(filepath.Join(work, "drivers.txt"), lines(fx.drivers), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "documents.txt"), lines(fx.docIDs), 0o600); err != nil {
		return err
	}
	pdf := make([]byte, 1<<20)
	copy(pdf, "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	for i := 20; i < len(pdf); i++ {
		pdf[i] = byte('a' + rand.IntN(26))
	}
	copy(pdf[len(pdf)-6:], "%%EOF\n")
	return os.WriteFile(filepath.Join(work, "upload.pdf"), pdf, 0o600)
}

// endpointDef is one read endpoint measured alone: its name and the path
// of its i-th fixed request.
type endpointDef struct {
	Name   string
	Single bool // a single-record read (profiled)
	Path   func(i int) string
}

// readEndpoints are the endpoints measured alone, each with K fixed
// requests (K different drivers, or K search terms).
func readEndpoints(fx fixtures) []endpointDef {
	drv := func(suffix string) func(int) string {
		return func(i int) string { return "/api/v0/drivers/" + fx.sample[i].String() + suffix }
	}
	return []endpointDef{
		{"GET /drivers sorted", false, func(int) string { return "/api/v0/drivers?sort_by=last_name&per_page=20" }},
		{"GET /drivers?search=", false, func(i int) string {
			return "/api/v0/drivers?search=" + url.QueryEscape(searchTerm(fx.lastNames[i])) + "&per_page=20"
		}},
		{"GET /drivers?document_status=expired", false, func(int) string { return "/api/v0/drivers?document_status=expired&per_page=20" }},
		{"GET /drivers?document_status=expiring_soon", false, func(int) string {
			return "/api/v0/drivers?document_status=expiring_soon&per_page=20"
		}},
		// The vehicles list beside the drivers list, with the same page
		// size (the set has a vehicle per driver).
		{"GET /vehicles sorted", false, func(int) string { return "/api/v0/vehicles?sort_by=plate_number&per_page=20" }},
		{"GET /vehicles?document_status=expired", false, func(int) string { return "/api/v0/vehicles?document_status=expired&per_page=20" }},
		{"GET /drivers/{id}", true, drv("")},
		{"GET /drivers/{id}/documents", true, drv("/documents")},
		{"GET /drivers/{id}/finance", true, drv("/finance?per_page=20")},
		{"GET /drivers/{id}/rating (past month)", true, drv("/rating?period=" + fx.pastMonth)},
		{"GET /drivers/{id}/rating (current month)", true, drv("/rating")},
	}
}

// searchTerm is the first four letters of a last name, lower-cased.
func searchTerm(last string) string {
	r := []rune(strings.ToLower(last))
	return string(r[:min(4, len(r))])
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(database url)"
	}
	return u.Redacted()
}
