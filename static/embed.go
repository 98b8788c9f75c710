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
// The installed app: icons/ (drawn by `make icons`), sw.js (the service
// worker, served at /sw.js), pwa.js (registers it) and workbox/ (the
// pinned Workbox runtime the worker loads, copied by `make workbox`).
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

// FS holds the assets.
//
//go:embed app.css htmx.min.js upload.js finance.js forms.js rating.js nav.js tables.js live.js favicon.ico apidocs pwa.js sw.js icons/*.png workbox
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

// Precache lists the versioned URLs (static.URL) of the assets the pages
// load, which the service worker keeps on the phone: everything but the
// API documentation's viewer, the Workbox runtime (the worker's own
// scripts) and the worker itself.
func Precache() []string {
	var urls []string
	_ = fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(path, "apidocs/") || strings.HasPrefix(path, "workbox/") || path == "sw.js" {
			return nil
		}
		urls = append(urls, URL(path))
		return nil
	})
	sort.Strings(urls)
	return urls
}
