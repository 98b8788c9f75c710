package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

const (
	localDirPerm  fs.FileMode = 0o750
	localFilePerm fs.FileMode = 0o640
)

// TempPattern names the temporary files Local.Put writes before renaming
// them into place (os.CreateTemp's pattern; also a filepath.Match
// pattern). A crash can leave one behind; SweepTemp removes them.
const TempPattern = ".put-*.tmp"

// Local is a Store on the local file system, under a root directory.
type Local struct {
	root string
}

var _ Store = (*Local)(nil)

// NewLocal returns a Store that keeps files under root, creating root if it
// is missing.
func NewLocal(root string) (*Local, error) {
	if root == "" {
		return nil, errors.New("local store: empty root")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("local store root %s: %w", root, err)
	}
	if err := os.MkdirAll(abs, localDirPerm); err != nil {
		return nil, fmt.Errorf("local store root: %w", err)
	}
	return &Local{root: abs}, nil
}

// Disk returns "local".
func (l *Local) Disk() string { return "local" }

// Root returns the absolute directory the files are kept under.
func (l *Local) Root() string { return l.root }

// full maps a checked store path to its file name on disk.
func (l *Local) full(path string) string {
	return filepath.Join(l.root, filepath.FromSlash(path))
}

// Put writes to a temporary file in the destination folder and renames it
// into place, so a reader never sees a half-written file and a failed Put
// leaves nothing behind.
func (l *Local) Put(ctx context.Context, path string, r io.Reader, size int64, contentType string) (err error) {
	if err := checkPath(path); err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("local put %s: negative size %d", path, size)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}

	dst := l.full(path)
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, localDirPerm); err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	// The temp file must be in the same folder: rename is only atomic
	// within one file system.
	tmp, err := os.CreateTemp(dir, TempPattern)
	if err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()

	// CreateTemp makes the file 0o600; Chmod is not affected by the umask.
	if err := tmp.Chmod(localFilePerm); err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	n, err := io.Copy(tmp, io.LimitReader(ctxReader{ctx: ctx, r: r}, size))
	if err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	if n != size {
		return fmt.Errorf("local put %s: read %d of %d bytes: %w", path, n, size, io.ErrUnexpectedEOF)
	}
	// Flush to disk before the rename makes the file visible, so a crash
	// cannot leave a complete-looking but empty document.
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return fmt.Errorf("local put %s: %w", path, err)
	}
	return nil
}

// Open opens the file for reading. The returned *os.File does not depend on
// ctx after Open returns.
func (l *Local) Open(ctx context.Context, path string) (File, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("local open %s: %w", path, err)
	}
	f, err := os.Open(l.full(path))
	if err != nil {
		if isNotExist(err) {
			return nil, fmt.Errorf("local open %s: %w", path, ErrNotExist)
		}
		return nil, fmt.Errorf("local open %s: %w", path, err)
	}
	// A directory is not a stored file (it is only a prefix of one), just as
	// a key prefix is not an object in S3.
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("local open %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("local open %s: %w", path, ErrNotExist)
	}
	return f, nil
}

// Delete removes the file. Emptied parent folders are kept: they are cheap,
// and removing them would race with a concurrent Put into the same folder.
func (l *Local) Delete(ctx context.Context, path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("local delete %s: %w", path, err)
	}
	full := l.full(path)
	info, err := os.Lstat(full)
	if err != nil {
		if isNotExist(err) {
			return nil
		}
		return fmt.Errorf("local delete %s: %w", path, err)
	}
	if info.IsDir() {
		// Not a file, so there is no file to delete; os.Remove would
		// otherwise delete an empty folder.
		return nil
	}
	if err := os.Remove(full); err != nil && !isNotExist(err) {
		return fmt.Errorf("local delete %s: %w", path, err)
	}
	return nil
}

// Exists reports whether a regular file is stored at path.
func (l *Local) Exists(ctx context.Context, path string) (bool, error) {
	if err := checkPath(path); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("local exists %s: %w", path, err)
	}
	info, err := os.Stat(l.full(path))
	if err != nil {
		if isNotExist(err) {
			return false, nil
		}
		return false, fmt.Errorf("local exists %s: %w", path, err)
	}
	return info.Mode().IsRegular(), nil
}

// List returns the regular files in folder, leaving out the temporary
// files of Puts in progress (TempPattern).
func (l *Local) List(ctx context.Context, folder string) ([]string, error) {
	if err := checkPath(folder); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("local list %s: %w", folder, err)
	}
	entries, err := os.ReadDir(l.full(folder))
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("local list %s: %w", folder, err)
	}
	var paths []string
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if tmp, _ := filepath.Match(TempPattern, e.Name()); tmp {
			continue
		}
		paths = append(paths, folder+"/"+e.Name())
	}
	return paths, nil
}

// isNotExist also treats ENOTDIR as missing: "a/b/c" cannot exist when
// "a/b" is a file.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// ctxReader stops a copy as soon as ctx is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
