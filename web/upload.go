package web

import (
	"errors"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
)

// multipartOverhead is what an upload body may carry beyond the file: part
// headers, boundaries and the metadata parts.
const multipartOverhead = 1 << 20

// UploadBody caps the request body (CapUploadBody) and opens it as a
// multipart stream, for the API and the pages alike; a body that is not
// multipart/form-data is 400 BadRequest. Handlers call it after the guard,
// so a caller who may not upload is refused before anything is read.
func UploadBody(c echo.Context, maxFile int64) (*multipart.Reader, error) {
	CapUploadBody(c, maxFile)
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return nil, apperr.Wrap(err, apperr.KindBadRequest, "msg.documents.not_multipart")
	}
	return mr, nil
}

// CapUploadBody limits the request body of an upload to the largest file
// plus the multipart overhead, for the API and the pages alike, so that
// oversized metadata parts cannot exhaust memory either. Reading past the
// cap is a 413 PayloadTooLarge.
func CapUploadBody(c echo.Context, maxFile int64) {
	req := c.Request()
	limit := maxFile + multipartOverhead
	req.Body = cappedBody{http.MaxBytesReader(c.Response().Writer, req.Body, limit), limit}
}

// cappedBody turns http.MaxBytesReader's error into 413 PayloadTooLarge.
type cappedBody struct {
	io.ReadCloser
	limit int64
}

func (b cappedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		err = apperr.PayloadTooLarge("msg.common.body_too_large", "max", b.limit)
	}
	return n, err
}
