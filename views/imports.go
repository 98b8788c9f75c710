package views

import "context"

// ImportUploadData is the import page's first step: the upload form and
// the template downloads.
type ImportUploadData struct {
	CSRF    string
	MaxSize string
	// Errors are the messages about the file.
	Errors []string
}

// ImportData is one import as its page shows it: while it runs, the
// progress; after a dry run, the column matching, the preview and the
// confirmation; after a real run, what it did.
type ImportData struct {
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
}

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
