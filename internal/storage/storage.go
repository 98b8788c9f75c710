// Package storage keeps drivers' compliance document files (PDFs, images)
// on local disk or in an S3-compatible object store behind one interface.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// File is an open stored file. It is seekable so handlers can serve HTTP
// range requests with http.ServeContent.
type File interface {
	io.ReadSeekCloser
}

// Store keeps files by a slash-separated relative path such as
// "{company_id}/{driver_id}/{document_type}/{filename}".
type Store interface {
	// Disk names the backend ("local" or "s3"); it is recorded per file in
	// the database so a file is always read back from where it was written.
	Disk() string

	// Put stores exactly size bytes read from r at path, replacing any
	// existing file. It streams r and never holds the whole file in memory.
	// On any error (including r failing or ending early) nothing new is left
	// at path: a new path stays missing and an existing file keeps its old
	// content.
	Put(ctx context.Context, path string, r io.Reader, size int64, contentType string) error

	// Open opens the file at path. It returns an error wrapping ErrNotExist
	// when there is no such file. The caller must Close the file.
	Open(ctx context.Context, path string) (File, error)

	// Delete removes the file at path. Deleting a missing file is not an error.
	Delete(ctx context.Context, path string) error

	// Exists reports whether a file is stored at path.
	Exists(ctx context.Context, path string) (bool, error)

	// List returns the paths of the files directly in folder (a path
	// without a trailing slash), not those in its subfolders, in no
	// particular order. A missing folder holds none. Objects being written
	// (the local store's temporary files) are not listed.
	List(ctx context.Context, folder string) ([]string, error)
}

// ErrNotExist is returned (wrapped) by Open when no file is stored at the
// path. It is fs.ErrNotExist, so errors.Is(err, fs.ErrNotExist) also works.
var ErrNotExist = fs.ErrNotExist

// ErrInvalidPath is returned (wrapped) for a path that is empty, absolute,
// has empty, "." or ".." segments, or contains a backslash or NUL byte.
// Such paths are refused before the store is touched, so that a path built
// from user input can never escape its tenant's prefix.
var ErrInvalidPath = errors.New("storage: invalid path")

// checkPath returns an error wrapping ErrInvalidPath unless p is a clean,
// relative, slash-separated path.
func checkPath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
		return fmt.Errorf("%w: %q", ErrInvalidPath, p)
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: %q", ErrInvalidPath, p)
		}
	}
	return nil
}
