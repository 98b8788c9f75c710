package views

import "context"

// ImportUploadData is the import page's first step: the upload form and
// the template downloads.
type ImportUploadData struct {
	// Kind is what the page imports: drivers, vehicles or trailers.
	Kind string
	// Kinds are what the caller may import (the page offers the choice
	// when there are several).
	Kinds   []string
	CSRF    string
	MaxSize string
	// Errors are the messages about the file.
	Errors []string
}

// ImportData is one import as its page shows it: while it runs, the
// progress; after a dry run, the column matching, the preview and the
// confirmation; after a real run, what it did.
type ImportData struct {
	// Kind is what the import brings in: drivers, vehicles or trailers.
	Kind string
	CSRF string
	// Token is the confirmation form's one-time token (internal/forms): a
	// second click, or a resend on a poor connection, starts no second run.
	Token     string
	URL       string // the import's page
	Filename  string
	Status    string // queued, running, done, failed
	DryRun    bool
	Progress  int
	Rows      int
	Created   int
	Updated   int
	Unchanged int
	// ErrorRows counts the rows with at least one error; Problems counts
	// every error.
	ErrorRows, Problems int
	Columns             []ImportColumn
	// Fields are the choices of every column's select (the first: ignore).
	Fields  []Option
	Preview []ImportPreviewRow
	// Errors are messages about the column matching as a whole.
	Errors []string
	// ValidRows: the import applies (or applied) the rows without errors
	// and skips the others; else all or nothing.
	ValidRows bool
	// Updates and Creates are the first rows that update and create
	// drivers, and MoreUpdates and MoreCreates how many more there are;
	// UnchangedRows names the unchanged rows ("2–4, 9"), UnchangedCount
	// counts them.
	Updates                  []ImportUpdate
	Creates                  []ImportCreate
	MoreUpdates, MoreCreates int
	UnchangedRows            string
	UnchangedCount           int
	// SkippedRows names the rows with errors ("5, 9").
	SkippedRows string
}

// ImportUpdate is a row that updates a driver: the driver (linked while it
// exists) and each value the row changes.
type ImportUpdate struct {
	Row    int
	Driver string // "Jan Novák (DRV-0001)"
	URL    string
	Fields []ImportFieldChange
}

// ImportFieldChange is one field's value before and after, for people.
type ImportFieldChange struct {
	Label, Old, New string
}

// ImportCreate is a row that creates a driver: its name and e-mail (linked
// once the driver exists).
type ImportCreate struct {
	Row         int
	Name, Email string
	URL         string
}

// HasChanges reports whether the check lists any row's change.
func (d ImportData) HasChanges() bool {
	return len(d.Updates) > 0 || len(d.Creates) > 0 || d.UnchangedCount > 0
}

// Importable reports whether a checked file has a row that could be
// imported: not every row has an error.
func (d ImportData) Importable() bool { return d.DryRun && d.ErrorRows < d.Rows }

// ImportColumn is a column of the file, the field it fills ("" ignored)
// and its first value.
type ImportColumn struct {
	Header string
	Field  string
	// Label is the field's name ("" for an ignored column).
	Label  string
	Sample string
}

// ImportPreviewRow is a row of the file as the preview shows it: its
// cells with their errors, and the errors of fields without a column.
type ImportPreviewRow struct {
	Line   int
	Cells  []ImportCell
	Others []string
}

// ImportCell is one cell of the preview and its errors.
type ImportCell struct {
	Text   string
	Errors []string
}

// Running reports whether the import is still queued or running.
func (d ImportData) Running() bool { return d.Status == "queued" || d.Status == "running" }

func importCellID(line, col int) string { return "import-cell-" + itoa(line) + "-" + itoa(col) }

func importFieldID(col int) string { return "import-field-" + itoa(col) }

func (r ImportPreviewRow) hasErrors() bool {
	if len(r.Others) > 0 {
		return true
	}
	for _, c := range r.Cells {
		if len(c.Errors) > 0 {
			return true
		}
	}
	return false
}

func fieldOrIgnored(ctx context.Context, label string) string {
	if label == "" {
		return T(ctx, "imports.ignored")
	}
	return label
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// importCountLabel is the name of an action's count: what a check would do
// ("To update") or a run did ("Updated").
func importCountLabel(ctx context.Context, dryRun bool, action string) string {
	if dryRun {
		return T(ctx, "imports.count."+action)
	}
	return T(ctx, "imports.count."+action+"d")
}

// ImportBase is the address of the import pages of kind ("/drivers/import").
func ImportBase(kind string) string { return "/" + kind + "/import" }

// ImportTitleKey is the catalogue key of the import page's title of kind.
func ImportTitleKey(kind string) string { return importKey(kind, "imports.title") }

// importKey is the catalogue key of a text of the import pages that names
// what is imported: the drivers' key itself, else the key of the kind
// ("imports.title.vehicles").
func importKey(kind, key string) string {
	if kind == "" || kind == "drivers" {
		return key
	}
	return key + "." + kind
}

// importT is T of a text of the import pages that names what is imported.
func importT(ctx context.Context, kind, key string, args ...any) string {
	return T(ctx, importKey(kind, key), args...)
}
