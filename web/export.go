package web

import (
	"io"
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

// ExportBuilt answers a table built whole (the import template) in the
// format the format query parameter asks for: build is the service call,
// given the reader of that parameter to call once its checks have passed,
// so that a caller who may not have the table is refused before a bad
// format is (403 before 422), the same on both fronts; the download
// headers are those of Export.
func ExportBuilt(c echo.Context, name string, build func(readFormat func() (export.Format, error)) ([]byte, error)) error {
	var format export.Format
	data, err := build(func() (export.Format, error) {
		var err error
		format, err = export.FormatParam(c.QueryParam("format"))
		return format, err
	})
	if err != nil {
		return err
	}
	downloadHeaders(c, format, name)
	return c.Blob(http.StatusOK, format.ContentType(), data)
}

// File answers a file built whole (a payslip) as an attachment, with the
// download headers of Export: contentType, filename (RFC 6266), no
// sniffing, no caching.
func File(c echo.Context, contentType, filename string, data []byte) error {
	attachmentHeaders(c, contentType, filename)
	return c.Blob(http.StatusOK, contentType, data)
}

// StartFile commits the response to a download streamed as it is made (a
// ZIP of payslips), with the headers of File, and returns the writer of
// its body. Call it only once every check has passed: an error after it
// can only cut the download short.
func StartFile(c echo.Context, contentType, filename string) io.Writer {
	attachmentHeaders(c, contentType, filename)
	c.Response().WriteHeader(http.StatusOK)
	return c.Response()
}

// downloadHeaders: the format's type, name as an RFC 6266 attachment, no
// sniffing, no caching.
func downloadHeaders(c echo.Context, format export.Format, name string) {
	attachmentHeaders(c, format.ContentType(), name+"."+format.Extension())
}

func attachmentHeaders(c echo.Context, contentType, filename string) {
	hdr := c.Response().Header()
	hdr.Set(echo.HeaderContentType, contentType)
	hdr.Set(echo.HeaderContentDisposition, ContentDisposition(filename))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set(echo.HeaderCacheControl, "private, no-store")
}
