package web

import (
	"mime/multipart"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
)

// multipartOverhead is what an upload body may carry beyond the file: part
// headers, boundaries and the metadata parts.
const multipartOverhead = 1 << 20

// UploadBody caps the request body (CapUploadBody) and opens it as a
// multipart stream, for the API and the pages alike; a body that is not
// multipart/form-data is 400 BadRequest. Services call it (through a reader) after their access check,
// so a caller who may not upload is refused before anything is read.
func UploadBody(c echo.Context, maxFile int64) (*multipart.Reader, error) {
	CapUploadBody(c, maxFile)
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return nil, apperr.Wrap(err, apperr.KindBadRequest, "msg.documents.not_multipart")
	}
	return mr, nil
}

// CapUploadBody raises the request's body limit (MaxBodyBytes for every
// other request) to the largest file plus the multipart overhead, for the
// API and the pages alike, so that oversized metadata parts cannot exhaust
// memory either. Reading past the cap is a 413 PayloadTooLarge.
func CapUploadBody(c echo.Context, maxFile int64) {
	bodyOf(c).setLimit(maxFile + multipartOverhead)
}
