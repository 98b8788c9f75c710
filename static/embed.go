// Package static holds the built web assets (Tailwind CSS, htmx), embedded
// in the binary so the pages never load anything from another site.
// app.css is built by `make css`, htmx.min.js copied by `make htmx`; both
// are committed. upload.js is hand-written (document uploads with a
// progress bar, drag-and-drop and the camera), and so are finance.js (the
// approval queue's "select all"), forms.js (forms sent once, and the
// address a refused form keeps), rating.js (the rating configuration's
// running sum of the weights), nav.js (the navigation's menus) and
// tables.js (the names of a table's columns on its cards on a phone).
// favicon.ico is the browser tab's icon, also served at /favicon.ico.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// FS holds the assets.
//
//go:embed app.css htmx.min.js upload.js finance.js forms.js rating.js nav.js tables.js live.js favicon.ico apidocs
var FS embed.FS

var (
	versionsOnce sync.Once
	versions     map[string]string
)

// URL returns the asset's path under /static/ with a content hash in the
// query, so the long cache lifetime never serves a stale file after an
// upgrade.
func URL(name string) string {
	versionsOnce.Do(func() {
		versions = map[string]string{}
		_ = fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(FS, path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			versions[path] = hex.EncodeToString(sum[:6])
			return nil
		})
	})
	if v, ok := versions[name]; ok {
		return "/static/" + name + "?v=" + v
	}
	return "/static/" + name
}
