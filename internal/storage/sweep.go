package storage

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// StaleAge is how old a temporary file must be before SweepTemp removes
// it: no upload takes that long (docs/security.md).
const StaleAge = time.Hour

// SweepTemp removes files matching pattern (filepath.Match, on the base
// name) under dir (in its subfolders too when recursive), last modified more than olderThan ago:
// the upload spool files and the local store's half-written objects a
// crash left behind. It returns how many it removed. A missing dir is not
// an error.
func SweepTemp(dir, pattern string, olderThan time.Duration, recursive bool) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	removed := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		if d.IsDir() {
			if path != dir && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if ok, _ := filepath.Match(pattern, d.Name()); !ok {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil
		}
		if err := os.Remove(path); err == nil {
			removed++
		}
		return nil
	})
	return removed, err
}
