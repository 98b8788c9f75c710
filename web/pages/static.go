package pages

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/static"
)

// mountStatic serves the embedded assets at /static/, and the icon also
// at /favicon.ico, where browsers ask for it by themselves; all outside
// the rate limiter (docs/rate-limits.md). A URL carrying the content hash
// (static.URL) is cached for a year; without it, for an hour. The
// installed app's manifest and service worker are public too
// (docs/web-app.md): a browser fetches them without the session.
func mountStatic(e *echo.Echo) {
	e.GET("/static/*", func(c echo.Context) error { return serveAsset(c, c.Param("*")) })
	e.GET("/favicon.ico", func(c echo.Context) error { return serveAsset(c, "favicon.ico") })
	e.GET("/manifest.webmanifest", serveManifest)
	e.GET("/sw.js", serveWorker)
}

// appColor is the header's blue (Tailwind blue-800): the installed app's
// title bar and splash screen.
const appColor = "#1e40af"

type manifestIcon struct {
	Src     string `json:"src"`
	Sizes   string `json:"sizes"`
	Type    string `json:"type"`
	Purpose string `json:"purpose"`
}

var manifest = sync.OnceValue(func() []byte {
	b, _ := json.Marshal(map[string]any{
		"name":             "Konvoj",
		"short_name":       "Konvoj",
		"id":               "/",
		"start_url":        "/",
		"scope":            "/",
		"display":          "standalone",
		"theme_color":      appColor,
		"background_color": appColor,
		"icons": []manifestIcon{
			{Src: static.URL("icons/icon-192.png"), Sizes: "192x192", Type: "image/png", Purpose: "any"},
			{Src: static.URL("icons/icon-512.png"), Sizes: "512x512", Type: "image/png", Purpose: "any"},
			{Src: static.URL("icons/maskable-512.png"), Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
		},
	})
	return b
})

func serveManifest(c echo.Context) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=3600")
	return c.Blob(http.StatusOK, "application/manifest+json", manifest())
}

// worker is static/sw.js after the list of assets it keeps; the list
// changes with every asset's content, so the browser installs the new
// worker after an upgrade.
var worker = sync.OnceValue(func() []byte {
	list, _ := json.Marshal(static.Precache())
	src, _ := fs.ReadFile(static.FS, "sw.js")
	return append([]byte("self.KONVOJ_ASSETS = "+string(list)+";\n"), src...)
})

// serveWorker answers /sw.js, never cached by HTTP so that an upgrade
// reaches the phone on its next visit.
func serveWorker(c echo.Context) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", worker())
}

func serveAsset(c echo.Context, name string) error {
	b, err := fs.ReadFile(static.FS, name)
	if err != nil || name == "" {
		return echo.ErrNotFound
	}
	h := c.Response().Header()
	if c.QueryParam("v") != "" {
		h.Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		h.Set(echo.HeaderCacheControl, "public, max-age=3600")
	}
	http.ServeContent(c.Response(), c.Request(), name, time.Time{}, bytes.NewReader(b))
	return nil
}
