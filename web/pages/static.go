package pages

import (
	"bytes"
	"io/fs"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/static"
)

// mountStatic serves the embedded assets at /static/, and the icon also
// at /favicon.ico, where browsers ask for it by themselves; both outside
// the rate limiter (docs/rate-limits.md). A URL carrying the content hash
// (static.URL) is cached for a year; without it, for an hour.
func mountStatic(e *echo.Echo) {
	e.GET("/static/*", func(c echo.Context) error { return serveAsset(c, c.Param("*")) })
	e.GET("/favicon.ico", func(c echo.Context) error { return serveAsset(c, "favicon.ico") })
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
