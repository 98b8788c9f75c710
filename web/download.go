package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/documents"
)

// ServeDownload sends an opened document file as an attachment, the same for
// the API and the pages: its stored type, the SHA-256 as ETag, the original
// name with the detected type's extension (DownloadName, ContentDisposition), no sniffing, and no shared caching of personal
// documents (the browser may keep it, revalidating with the ETag).
// http.ServeContent handles Range, If-Range and If-None-Match. The caller
// closes d.
func ServeDownload(c echo.Context, d *documents.Download) {
	hdr := c.Response().Header()
	hdr.Set(echo.HeaderContentType, d.MimeType)
	hdr.Set("ETag", `"`+d.HashSHA256+`"`)
	hdr.Set(echo.HeaderContentDisposition, ContentDisposition(DownloadName(d.OriginalFilename, d.MimeType)))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set(echo.HeaderCacheControl, "private, no-cache")
	http.ServeContent(c.Response(), c.Request(), "", d.UploadedAt, d)
}
