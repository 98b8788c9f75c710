// Package faults marks the points of an upload, and of an import, where a
// test may make the process kill itself, to check that a crash leaves no
// personal data behind (docs/security.md, "Uploads and crashes") and that
// an import it cut off ends failed, having changed nothing
// (docs/import-export.md).
//
// The points only work in a binary built with `-tags faultinject`, and only
// for the point the KONVOJ_FAULT environment variable names there
// (faults_on.go; "point:n" for its n-th pass). In every other build At
// does nothing and Reader returns its reader (faults_off.go): production
// binaries hold no trace of them.
package faults

// Point names a place in an upload.
type Point string

// The points of an upload, in order.
const (
	// MidBody: part of the file is received and spooled.
	MidBody Point = "mid-body"
	// BodyReceived: the whole body is received and spooled; nothing
	// stored yet.
	BodyReceived Point = "body-received"
	// MidStore: part of the object is written to the store.
	MidStore Point = "mid-store"
	// ObjectStored: the object is stored; its row is not inserted yet.
	ObjectStored Point = "object-stored"
	// BeforeCommit: the row is inserted; the transaction is about to
	// commit.
	BeforeCommit Point = "before-commit"
)

// Points lists every point of an upload, in order.
var Points = []Point{MidBody, BodyReceived, MidStore, ObjectStored, BeforeCommit}

// MidImport: an import is writing its rows; its transaction holds the
// first 500 and has not committed. Reached at each progress report of the
// writing after the first.
const MidImport Point = "mid-import"
