package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/export"
)

// Export answers a table download, the same for the API and the pages:
// run is the service call, given a start function that it calls once its
// checks have passed. Until then a refusal is an ordinary error answer;
// start sets the download headers (the format's type, name as an RFC 6266
// attachment, no caching of personal data) and commits the response, and
// the rows stream into it as the service reads them. An error after that
// can only cut the download short (it is logged).
func Export(c echo.Context, format export.Format, name, sheet string, run func(start func() (export.Writer, error)) error) error {
	start := func() (export.Writer, error) {
		downloadHeaders(c, format, name)
		c.Response().WriteHeader(http.StatusOK)
		return export.New(format, c.Response(), sheet)
	}
	return run(start)
}

// ExportFile answers a table built whole (the import template) with the
// download headers of Export.
func ExportFile(c echo.Context, format export.Format, name string, data []byte) error {
	downloadHeaders(c, format, name)
	return c.Blob(http.StatusOK, format.ContentType(), data)
}

// downloadHeaders: the format's type, name as an RFC 6266 attachment, no
// sniffing, no caching.
func downloadHeaders(c echo.Context, format export.Format, name string) {
	hdr := c.Response().Header()
	hdr.Set(echo.HeaderContentType, format.ContentType())
	hdr.Set(echo.HeaderContentDisposition, ContentDisposition(name+"."+format.Extension()))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set(echo.HeaderCacheControl, "private, no-store")
}
