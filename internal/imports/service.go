package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime/multipart"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/faults"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// SyncRows is the most rows an import runs within its request; a larger
// file is queued as a River job and its progress is polled.
const SyncRows = 1000

// Import is an import as the API answers it (docs/import-export.md).
type Import struct {
	ID uuid.UUID `json:"id"`
	// Kind is what the import brings in (drivers, vehicles, trailers).
	Kind   string `json:"-"`
	Status string `json:"status"` // queued, running, done, failed
	DryRun bool   `json:"dry_run"`
	// Mode is how a real run treats rows with errors: all_or_nothing or
	// valid_rows (drivers.ModeAllOrNothing, drivers.ModeValidRows).
	Mode      string     `json:"mode"`
	Filename  string     `json:"filename"`
	Rows      int        `json:"rows"`
	Created   int        `json:"created"`
	Updated   int        `json:"updated"`
	Unchanged int        `json:"unchanged"`
	Errors    []RowError `json:"errors"`
	// Changes are what each row without an error does (or did).
	Changes   []drivers.RowChange `json:"changes"`
	Progress  int                 `json:"progress"` // percent of the rows done
	Columns   []Column            `json:"columns"`
	Unknown   []string            `json:"unknown_columns"`
	Mapping   map[string]string   `json:"-"`
	CreatedAt time.Time           `json:"created_at"`
	// FinishedAt is when it ended (null while queued or running).
	FinishedAt *time.Time `json:"finished_at"`
	// Failure says why a failed import failed (null unless failed).
	Failure *string `json:"failure"`
}

// RowError is a problem of one row (row 1 is the header) and field; Texts
// holds the message in each complete language, Message the one answered.
type RowError struct {
	Row     int               `json:"row"`
	Field   string            `json:"field"`
	Message string            `json:"message"`
	Texts   map[string]string `json:"-"`
}

// storedError is a RowError as the imports table keeps it.
type storedError struct {
	Row   int               `json:"row"`
	Field string            `json:"field"`
	Texts map[string]string `json:"texts"`
}

// Enqueuer queues the job of an import (a River client).
type Enqueuer func(ctx context.Context, id, companyID uuid.UUID) error

// Service runs imports.
type Service struct {
	db      *pgxpool.Pool
	drivers *drivers.Service
	fleet   *fleet.Service
	// enqueue queues a large import's job; nil runs it in the request.
	enqueue  Enqueuer
	Log      *slog.Logger
	maxBytes int64
}

// NewService returns an imports service on db with the drivers and fleet
// services that check and write the rows. enqueue queues the job of a
// large import (nil: every import runs in its request, as in the job
// worker).
func NewService(db *pgxpool.Pool, d *drivers.Service, f *fleet.Service, maxBytes int64, enqueue Enqueuer) *Service {
	if maxBytes <= 0 {
		maxBytes = 20 << 20
	}
	return &Service{db: db, drivers: d, fleet: f, Log: slog.Default(), maxBytes: maxBytes, enqueue: enqueue}
}

// Upload is an uploaded file and the request's choices.
type Upload struct {
	Kind     Kind
	Filename string
	Data     []byte
	DryRun   bool
	// Mode is drivers.ModeAllOrNothing or drivers.ModeValidRows.
	Mode    string
	Mapping map[string]string
}

// Receive reads an upload (readUpload: dryRun and mode are the query's
// values) and
// starts its import (start), in one of the company's MaxRunning places
// taken before the file is read, since an upload being received holds its
// file: ErrBusy (409) when none is free. body opens the upload once the
// role may import (403 before a refused body). alwaysDryRun makes it a dry
// run whatever the upload says (the page checks every file first).
func (s *Service) Receive(ctx context.Context, p auth.Principal, kind Kind, body func() (*multipart.Reader, error), dryRun, mode string,
	alwaysDryRun bool) (Import, error) {
	if err := importer(p, kind); err != nil {
		return Import{}, err
	}
	mr, err := body()
	if err != nil {
		return Import{}, err
	}
	end, err := begin(p.CompanyID)
	if err != nil {
		return Import{}, err
	}
	defer end()
	u, err := readUpload(mr, s.maxBytes, dryRun, mode)
	if err != nil {
		return Import{}, err
	}
	if alwaysDryRun {
		u.DryRun = true
	}
	u.Kind = kind
	return s.start(ctx, p, u)
}

// UploadLimit is the largest file the caller may upload, for the upload
// form of kind; a role that may not import it is 403.
func (s *Service) UploadLimit(p auth.Principal, kind Kind) (int64, error) {
	if err := importer(p, kind); err != nil {
		return 0, err
	}
	return s.maxBytes, nil
}

// start reads and matches the file (refusals: 413, 415, 422), records the
// import into the caller's company and runs it: within the request up to
// SyncRows rows, else as a job (status queued). The caller's access is
// checked (importer, loadImport) and it holds one of the company's places.
func (s *Service) start(ctx context.Context, p auth.Principal, u Upload) (Import, error) {
	company := p.CompanyID
	t, err := Read(u.Data)
	if err != nil {
		return Import{}, err
	}
	fields, err := s.Fields(ctx, company, u.Kind)
	if err != nil {
		return Import{}, err
	}
	cols, unknown, err := fields.Match(t.Header, u.Mapping)
	if err != nil {
		return Import{}, err
	}
	if u.Mapping == nil {
		u.Mapping = map[string]string{}
	}
	if unknown == nil {
		unknown = []string{}
	}
	mapping, _ := json.Marshal(u.Mapping)
	// The matched columns are kept with the import, so that a read (a
	// client polling a running import) does not read and parse the file.
	colsJSON, _ := json.Marshal(cols)
	unknownJSON, _ := json.Marshal(unknown)
	var id uuid.UUID
	if u.Mode == "" {
		u.Mode = drivers.ModeAllOrNothing
	}
	if u.Kind == "" {
		u.Kind = Drivers
	}
	err = s.db.QueryRow(ctx, `INSERT INTO imports (company_id, user_id, user_name, user_role, user_email, ip_address, user_agent,
			status, dry_run, filename, file, mapping, rows, columns, unknown_columns, mode, kind)
		VALUES ($1, $2, NULLIF($3, ''), $4, NULLIF($5, ''), NULLIF($6, ''), NULLIF($7, ''), 'queued', $8, $9, $10, $11, $12, $13, $14, $15, $16)
		RETURNING id`,
		company, nilUUID(p.UserID), p.Name, string(p.Role), p.Email, p.IPAddress, truncate(p.UserAgent, 500),
		u.DryRun, truncate(u.Filename, 255), u.Data, mapping, len(t.Rows), colsJSON, unknownJSON, u.Mode, string(u.Kind)).Scan(&id)
	if err != nil {
		return Import{}, fmt.Errorf("record import: %w", err)
	}
	if len(t.Rows) > SyncRows && s.enqueue != nil {
		if err := s.enqueue(ctx, id, company); err != nil {
			return Import{}, err
		}
	} else if err := s.run(ctx, company, id); err != nil {
		return Import{}, err
	}
	return s.load(ctx, s.db, company, id, i18n.EN)
}

// Get returns import id of the caller's company (messages in lang).
func (s *Service) Get(ctx context.Context, p auth.Principal, id uuid.UUID, lang i18n.Lang) (Import, error) {
	return s.loadImport(ctx, s.db, p, id, lang)
}

// Again is what a new run of an earlier import's file changes.
type Again struct {
	// DryRun: a check only; false runs the checked file for real.
	DryRun bool
	// Mode is how the run treats rows with errors ("": all or nothing).
	Mode string
	// Mapping is the column matching; nil keeps the earlier one.
	Mapping map[string]string
}

// Again starts a new import of import id's file: a dry run with another
// column matching, or the real run of a checked file. read fills the
// choices once the earlier import is found the caller's (403 and 404
// before a refused form), from the earlier import (messages in lang). It
// answers as Receive does; the earlier import stays as it was.
func (s *Service) Again(ctx context.Context, p auth.Principal, id uuid.UUID, lang i18n.Lang, read func(earlier Import, in *Again) error) (Import, error) {
	earlier, err := s.loadImport(ctx, s.db, p, id, lang)
	if err != nil {
		return Import{}, err
	}
	var in Again
	if err := read(earlier, &in); err != nil {
		return Import{}, err
	}
	end, err := begin(p.CompanyID)
	if err != nil {
		return Import{}, err
	}
	defer end()
	// The file is read once a place is taken: the places bound the files
	// held at once.
	u := Upload{Kind: Kind(earlier.Kind), Filename: earlier.Filename, DryRun: in.DryRun, Mode: in.Mode, Mapping: in.Mapping}
	err = s.db.QueryRow(ctx, `SELECT file FROM imports WHERE company_id = $1 AND id = $2`, p.CompanyID, id).Scan(&u.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return Import{}, apperr.NotFound("msg.imports.not_found")
	}
	if err != nil {
		return Import{}, fmt.Errorf("import %s file: %w", id, err)
	}
	if u.Mapping == nil {
		u.Mapping = earlier.Mapping
	}
	return s.start(ctx, p, u)
}

// Preview is an import with the rows of its file a page shows (Lines):
// every row with an error (up to max of them) and the first rows, up to
// max rows in all, in file order.
type Preview struct {
	Import
	Header []string
	Lines  []Row
	// Fields are what a column may be matched to.
	Fields Fields
	// NewRows are the file's rows of the first changes that create a
	// driver (up to maxChanges), by row number, to name the new drivers.
	NewRows map[int]Row
	// Drivers are the live drivers the first changes of each action name
	// (up to maxChanges), and Offices the offices their fields name.
	Drivers map[uuid.UUID]DriverName
	Offices map[uuid.UUID]string
}

// DriverName is how a page names a driver of a change.
type DriverName struct {
	Name, Number string
}

// Preview returns import id of the caller's company (messages in lang)
// and, once it is done, the rows to show of its file and the names its
// first maxChanges changes of each action need; while it is queued or
// running, or when it failed, the import alone (what a page polls).
func (s *Service) Preview(ctx context.Context, p auth.Principal, id uuid.UUID, lang i18n.Lang, max, maxChanges int) (Preview, error) {
	im, err := s.loadImport(ctx, s.db, p, id, lang)
	if err != nil {
		return Preview{}, err
	}
	pv := Preview{Import: im}
	if im.Status != "done" {
		return pv, nil
	}
	if pv.Fields, err = s.Fields(ctx, p.CompanyID, Kind(im.Kind)); err != nil {
		return Preview{}, err
	}
	end, err := begin(p.CompanyID)
	if err != nil {
		return Preview{}, err
	}
	defer end()
	var data []byte
	if err := s.db.QueryRow(ctx, `SELECT file FROM imports WHERE company_id = $1 AND id = $2`, p.CompanyID, id).Scan(&data); err != nil {
		return Preview{}, fmt.Errorf("import %s file: %w", id, err)
	}
	t, err := Read(data)
	if err != nil {
		// A file that cannot be read was never recorded (start refuses it).
		return pv, nil
	}
	pv.Header = t.Header
	bad := map[int]bool{}
	for _, e := range im.Errors {
		if len(bad) < max {
			bad[e.Row] = true
		}
	}
	first := max - len(bad)
	created := map[int]bool{}
	shown := map[string]int{}
	var driverIDs, officeIDs []uuid.UUID
	for _, c := range im.Changes {
		if shown[c.Action]++; shown[c.Action] > maxChanges {
			continue
		}
		if c.Action == drivers.ActionCreate {
			created[c.Row] = true
		}
		if c.DriverID != nil {
			driverIDs = append(driverIDs, *c.DriverID)
		}
		if f, ok := c.Fields["office_id"]; ok {
			for _, raw := range []json.RawMessage{f.Old, f.New} {
				var office uuid.UUID
				if json.Unmarshal(raw, &office) == nil && office != uuid.Nil {
					officeIDs = append(officeIDs, office)
				}
			}
		}
	}
	pv.NewRows = map[int]Row{}
	for i, r := range t.Rows {
		if bad[r.Line] || i < first {
			pv.Lines = append(pv.Lines, r)
		}
		if created[r.Line] {
			pv.NewRows[r.Line] = r
		}
	}
	if pv.Drivers, pv.Offices, err = s.names(ctx, p.CompanyID, Kind(im.Kind), driverIDs, officeIDs); err != nil {
		return Preview{}, err
	}
	return pv, nil
}

// names reads the names of the company's live drivers (or, for a fleet
// import, vehicles or trailers: their plate) and offices among the ids,
// for the changes a page shows.
func (s *Service) names(ctx context.Context, company uuid.UUID, kind Kind, driverIDs, officeIDs []uuid.UUID) (map[uuid.UUID]DriverName, map[uuid.UUID]string, error) {
	ds, os := map[uuid.UUID]DriverName{}, map[uuid.UUID]string{}
	if len(driverIDs) == 0 && len(officeIDs) == 0 {
		return ds, os, nil
	}
	records := `SELECT id, first_name || ' ' || last_name, internal_number FROM drivers`
	if kind.isFleet() {
		records = `SELECT id, coalesce(plate_number, ''), internal_number FROM ` + string(kind)
	}
	rows, err := s.db.Query(ctx, records+`
			WHERE company_id = $1 AND id = ANY($2) AND deleted_at IS NULL
		UNION ALL
		SELECT id, name, NULL FROM offices WHERE company_id = $1 AND id = ANY($3)`, company, driverIDs, officeIDs)
	if err != nil {
		return nil, nil, fmt.Errorf("names of an import's changes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var name string
		var number *string
		if err := rows.Scan(&id, &name, &number); err != nil {
			return nil, nil, fmt.Errorf("names of an import's changes: %w", err)
		}
		if number != nil {
			ds[id] = DriverName{Name: name, Number: *number}
		} else {
			os[id] = name
		}
	}
	return ds, os, rows.Err()
}

// importColumns are the columns of an import that importRow.dest scans.
const importColumns = `id, kind, status, dry_run, mode, filename, rows, created, updated, unchanged, errors, changes, progress,
	mapping, columns, unknown_columns, created_at, finished_at, failure`

// importRow is an import's row as stored, before decode.
type importRow struct {
	company                               uuid.UUID
	im                                    Import
	errs, changes, mapping, cols, unknown []byte
	failure                               *string
}

// dest are the scan targets of importColumns, after those of first.
func (r *importRow) dest(first ...any) []any {
	return append(first, &r.im.ID, &r.im.Kind, &r.im.Status, &r.im.DryRun, &r.im.Mode, &r.im.Filename, &r.im.Rows, &r.im.Created, &r.im.Updated,
		&r.im.Unchanged, &r.errs, &r.changes, &r.im.Progress, &r.mapping, &r.cols, &r.unknown, &r.im.CreatedAt, &r.im.FinishedAt, &r.failure)
}

// load reads import id of company, found by the caller's own access check
// (or a job's).
func (s *Service) load(ctx context.Context, db postgres.DBTX, company, id uuid.UUID, lang i18n.Lang) (Import, error) {
	r := importRow{company: company}
	err := db.QueryRow(ctx, `SELECT `+importColumns+` FROM imports WHERE company_id = $1 AND id = $2`, company, id).Scan(r.dest()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return Import{}, apperr.NotFound("msg.imports.not_found")
	}
	if err != nil {
		return Import{}, fmt.Errorf("load import %s: %w", id, err)
	}
	return s.decode(ctx, db, r, lang)
}

// decode makes the import of a stored row, its messages in lang.
func (s *Service) decode(ctx context.Context, db postgres.DBTX, r importRow, lang i18n.Lang) (Import, error) {
	im, errs, mapping, cols, unknown, failure, company, id := r.im, r.errs, r.mapping, r.cols, r.unknown, r.failure, r.company, r.im.ID
	if im.Status == "failed" {
		// Any other failure is the general message (an import failed
		// before failure held a key holds its cause there).
		msg := lang.T("msg.imports.failed")
		if failure != nil && *failure == "msg.imports.interrupted" {
			msg = lang.T("msg.imports.interrupted")
		}
		im.Failure = &msg
	}
	var stored []storedError
	if err := json.Unmarshal(errs, &stored); err != nil {
		return Import{}, fmt.Errorf("import %s errors: %w", id, err)
	}
	im.Errors = make([]RowError, len(stored))
	for i, e := range stored {
		msg := e.Texts[string(lang)]
		if msg == "" {
			msg = e.Texts[string(i18n.EN)]
		}
		im.Errors[i] = RowError{Row: e.Row, Field: e.Field, Message: msg, Texts: e.Texts}
	}
	im.Changes = []drivers.RowChange{}
	if err := json.Unmarshal(r.changes, &im.Changes); err != nil {
		return Import{}, fmt.Errorf("import %s changes: %w", id, err)
	}
	_ = json.Unmarshal(mapping, &im.Mapping)
	im.Columns, im.Unknown = []Column{}, []string{}
	if cols == nil {
		// An import recorded before its columns were kept: matched again
		// from its file.
		cols, unknown = s.matchStored(ctx, db, company, id, Kind(im.Kind), im.Mapping)
	}
	_ = json.Unmarshal(cols, &im.Columns)
	_ = json.Unmarshal(unknown, &im.Unknown)
	return im, nil
}

// matchStored matches the columns of an import's stored file (as JSON),
// for an import recorded without them; nothing when the file cannot be
// read.
func (s *Service) matchStored(ctx context.Context, db postgres.DBTX, company, id uuid.UUID, kind Kind, mapping map[string]string) ([]byte, []byte) {
	var data []byte
	if err := db.QueryRow(ctx, `SELECT file FROM imports WHERE company_id = $1 AND id = $2`, company, id).Scan(&data); err != nil {
		return nil, nil
	}
	t, err := Read(data)
	if err != nil {
		return nil, nil
	}
	fields, err := s.Fields(ctx, company, kind)
	if err != nil {
		return nil, nil
	}
	cols, unknown, err := fields.Match(t.Header, mapping)
	if err != nil {
		return nil, nil
	}
	c, _ := json.Marshal(cols)
	u, _ := json.Marshal(unknown)
	return c, u
}

// Run is the job of a large import: ErrBusy, leaving the import queued,
// while the company has MaxRunning imports in progress; else run.
func (s *Service) Run(ctx context.Context, company, id uuid.UUID) error {
	end, err := begin(company)
	if err != nil {
		return err
	}
	defer end()
	return s.run(ctx, company, id)
}

// run checks and, unless it is a dry run or a row has an error, applies an
// import; it is the job's work and the request's for small files. A
// failure (not a row error) marks the import failed.
func (s *Service) run(ctx context.Context, company, id uuid.UUID) error {
	var p auth.Principal
	var data, mapping []byte
	var dryRun bool
	var role, mode, kindName string
	var userID *uuid.UUID
	var name, email, ip, ua *string
	// Only a queued import starts: one that was run, or failed as cut
	// off, is never run (again).
	err := s.db.QueryRow(ctx, `UPDATE imports SET status = 'running', heartbeat_at = now() WHERE company_id = $1 AND id = $2 AND status = 'queued'
		RETURNING file, mapping, dry_run, mode, kind, user_id, user_name, user_role, user_email, ip_address, user_agent`, company, id).
		Scan(&data, &mapping, &dryRun, &mode, &kindName, &userID, &name, &role, &email, &ip, &ua)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("start import %s: not queued", id)
	}
	if err != nil {
		return fmt.Errorf("start import %s: %w", id, err)
	}
	defer s.beat(ctx, company, id)()
	p = auth.Principal{CompanyID: company, Role: auth.Role(role), Name: deref(name), Email: deref(email),
		IPAddress: deref(ip), UserAgent: deref(ua)}
	if userID != nil {
		p.UserID = *userID
	}
	kind := Kind(kindName)
	if err := importer(p, kind); err != nil {
		return s.fail(ctx, company, id, err)
	}
	var m map[string]string
	_ = json.Unmarshal(mapping, &m)
	t, err := Read(data)
	if err != nil {
		return s.fail(ctx, company, id, err)
	}
	fields, err := s.Fields(ctx, company, kind)
	if err != nil {
		return s.fail(ctx, company, id, err)
	}
	cols, _, err := fields.Match(t.Header, m)
	if err != nil {
		return s.fail(ctx, company, id, err)
	}
	rows := rowsOf(t, cols)
	lastPct := -1
	progress := func(done int) {
		if done > len(rows)/2 && done < len(rows) {
			faults.At(faults.MidImport) // writing, past the first chunk
		}
		pct := 100 * done / max(1, len(rows))
		if pct/5 == lastPct/5 {
			return
		}
		lastPct = pct
		// Written apart from the import's transaction, so a poll sees it.
		if _, err := s.db.Exec(context.WithoutCancel(ctx), `UPDATE imports SET progress = $3, heartbeat_at = now() WHERE company_id = $1 AND id = $2`,
			company, id, min(pct, 99)); err != nil {
			s.Log.Warn("import progress", slog.Any("error", err))
		}
	}
	finish := func(ctx context.Context, tx pgx.Tx, res drivers.ImportResult) error {
		if err := s.finish(ctx, tx, company, id, res); err != nil {
			return err
		}
		if kind != Drivers {
			// import.completed is a driver import's event (docs/webhooks.md);
			// the records' own events tell of a fleet import.
			return nil
		}
		// A real run that changed the drivers (docs/webhooks.md).
		im, err := s.load(ctx, tx, company, id, i18n.EN)
		if err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, company, webhooks.ImportCompleted, im)
	}
	validRows := mode == drivers.ModeValidRows
	o := drivers.ImportOptions{ID: id, DryRun: dryRun, ValidRows: validRows, Progress: progress, Finish: finish}
	var res drivers.ImportResult
	switch kind {
	case Vehicles:
		res, err = s.fleet.ImportVehicles(ctx, p, rows, o)
	case Trailers:
		res, err = s.fleet.ImportTrailers(ctx, p, rows, o)
	default:
		res, err = s.drivers.Import(ctx, p, rows, o)
	}
	if err != nil {
		return s.fail(ctx, company, id, err)
	}
	if dryRun || (len(res.Errors) > 0 && !validRows) {
		// Nothing was written: the result is stored on its own.
		if err := s.finish(ctx, s.db, company, id, res); err != nil {
			return err
		}
	}
	s.Log.Info("import done", slog.String("import_id", id.String()), slog.String("file", t.describe()),
		slog.Bool("dry_run", dryRun), slog.Int("created", res.Created), slog.Int("updated", res.Updated),
		slog.Int("unchanged", res.Unchanged), slog.Int("errors", len(res.Errors)))
	return nil
}

// finish stores the result (in the import's transaction for a real run).
func (s *Service) finish(ctx context.Context, db postgres.DBTX, company, id uuid.UUID, res drivers.ImportResult) error {
	stored := make([]storedError, len(res.Errors))
	for i, e := range res.Errors {
		texts := map[string]string{}
		for _, l := range i18n.Complete {
			texts[string(l)] = l.Text(e.Message)
		}
		stored[i] = storedError{Row: e.Row, Field: e.Field, Texts: texts}
	}
	errs, err := json.Marshal(stored)
	if err != nil {
		return fmt.Errorf("import %s errors: %w", id, err)
	}
	if res.Changes == nil {
		res.Changes = []drivers.RowChange{}
	}
	changes, err := json.Marshal(res.Changes)
	if err != nil {
		return fmt.Errorf("import %s changes: %w", id, err)
	}
	_, err = db.Exec(ctx, `UPDATE imports SET status = 'done', progress = 100, rows = $3, created = $4, updated = $5,
			unchanged = $6, errors = $7, changes = $8, finished_at = now()
		WHERE company_id = $1 AND id = $2`, company, id, res.Rows, res.Created, res.Updated, res.Unchanged, errs, changes)
	if err != nil {
		return fmt.Errorf("finish import %s: %w", id, err)
	}
	return nil
}

// fail marks the import failed (its failure the message
// msg.imports.failed; the cause goes to the log) and returns the cause.
func (s *Service) fail(ctx context.Context, company, id uuid.UUID, cause error) error {
	s.Log.Warn("import failed", slog.String("import_id", id.String()), slog.Any("error", cause))
	if _, err := s.db.Exec(context.WithoutCancel(ctx), `UPDATE imports SET status = 'failed', failure = 'msg.imports.failed', finished_at = now()
		WHERE company_id = $1 AND id = $2`, company, id); err != nil {
		return errors.Join(cause, fmt.Errorf("mark import %s failed: %w", id, err))
	}
	return cause
}

func nilUUID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
