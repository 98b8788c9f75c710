package web

import (
	"net/http"
	"strings"

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

// ServeInline sends an opened document file to be shown in the page that
// asks for it (the review queue's image or PDF): the headers of
// ServeDownload, but Content-Disposition inline, and the page's own
// origin may frame it (X-Frame-Options SAMEORIGIN); the file itself may
// load nothing (Content-Security-Policy default-src 'none'). Only the
// allowed document types (PDF and images, never HTML or SVG) are ever
// stored, and nosniff keeps the browser to the stored type.
func ServeInline(c echo.Context, d *documents.Download) {
	hdr := c.Response().Header()
	hdr.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'")
	hdr.Set("X-Frame-Options", "SAMEORIGIN")
	hdr.Set(echo.HeaderContentType, d.MimeType)
	hdr.Set("ETag", `"`+d.HashSHA256+`"`)
	hdr.Set(echo.HeaderContentDisposition, "inline"+strings.TrimPrefix(ContentDisposition(DownloadName(d.OriginalFilename, d.MimeType)), "attachment"))
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set(echo.HeaderCacheControl, "private, no-cache")
	http.ServeContent(c.Response(), c.Request(), "", d.UploadedAt, d)
}
