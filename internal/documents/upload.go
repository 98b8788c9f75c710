package documents

import (
	"mime/multipart"

	"github.com/konvoj/konvoj/internal/uploads"
)

// maxFieldBytes caps a text part other than meta (number, country, dates).
const maxFieldBytes = 1 << 10

// readUpload reads a document upload's multipart body (uploads.ReadForm):
// the file part, the metadata parts and details (keep, the default: a
// field not given stays; replace: number, valid_from and valid_until not
// given are cleared, the new version's own). An unnamed file is named by the
// document's type once the document is loaded (uploads.Received.NameOr).
func readUpload(mr *multipart.Reader, maxBytes int64) (*uploads.Received, change, error) {
	var c change
	ups, err := uploads.ReadForm(mr, maxBytes, uploads.Form{
		Limit: func(name string) int64 {
			switch {
			case name == "meta":
				return maxMetaBytes
			case isMetadataField(name), name == "details":
				return maxFieldBytes
			}
			return 0
		},
		Label: fieldName,
		Set:   c.setFormField,
	})
	if err != nil {
		return nil, c, err
	}
	return ups[0], c.replaced(), nil
}

func isMetadataField(name string) bool {
	for _, f := range MetadataFields {
		if f == name {
			return true
		}
	}
	return false
}
