package documents

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/faults"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/textin"
)

// AllowedTypes maps each accepted file type to the extension of stored
// files. The type is detected from the content, never taken from the client.
var AllowedTypes = map[string]string{
	"application/pdf": "pdf",
	"image/jpeg":      "jpg",
	"image/png":       "png",
	"image/webp":      "webp",
	"image/heic":      "heic",
	"image/heif":      "heif",
}

// sniffLen is how much of a file DetectType looks at (as http.DetectContentType).
const sniffLen = 512

// maxFieldBytes caps a text part other than meta (number, country, dates).
const maxFieldBytes = 1 << 10

// DetectType returns the MIME type and stored extension of a file from its
// first bytes; ok is false when the type is not allowed.
func DetectType(head []byte) (mimeType, ext string, ok bool) {
	if t, ok := heifType(head); ok {
		return t, AllowedTypes[t], true
	}
	t, _, _ := strings.Cut(http.DetectContentType(head), ";")
	ext, ok = AllowedTypes[t]
	return t, ext, ok
}

// heifType recognises HEIC/HEIF images by the brands of their ISO-BMFF
// "ftyp" box, which http.DetectContentType does not know. The major brand
// decides; compatible brands count only for the HEVC-coded brands, because
// mif1/msf1 are also listed by AVIF images (AV1-coded, not allowed).
func heifType(head []byte) (string, bool) {
	if len(head) < 16 || string(head[4:8]) != "ftyp" {
		return "", false
	}
	size := int(binary.BigEndian.Uint32(head[:4]))
	if size < 16 || size > len(head) {
		size = len(head)
	}
	brand := func(b []byte) string {
		switch string(b) {
		case "heic", "heix", "hevc", "heim", "heis", "hevx":
			return "image/heic"
		case "mif1", "msf1", "heif":
			return "image/heif"
		}
		return ""
	}
	if t := brand(head[8:12]); t != "" {
		return t, true
	}
	if string(head[8:12]) == "avif" || string(head[8:12]) == "avis" {
		return "", false
	}
	for i := 16; i+4 <= size; i += 4 {
		if t := brand(head[i : i+4]); t == "image/heic" {
			return t, true
		}
	}
	return "", false
}

// SanitizeFilename makes the client's file name safe to keep and to show:
// only the last path element (either separator), no control or invisible
// formatting characters (such as the right-to-left override used to fake an
// extension), NFC-normalised, at most 255 characters with the extension
// kept. Letters of any script stay ("řidičák.pdf"). An empty result is
// replaced by fallback. The name is never used in a storage path.
func SanitizeFilename(name, fallback string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, name)
	name = norm.NFC.String(strings.TrimSpace(name))
	if strings.Trim(name, ".") == "" {
		return fallback
	}
	const maxLen = 255
	if utf8.RuneCountInString(name) > maxLen {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 16 {
			ext = ""
		}
		stem := []rune(strings.TrimSuffix(name, ext))
		name = string(stem[:maxLen-utf8.RuneCountInString(ext)]) + ext
	}
	return name
}

// isControl is true for control characters and invisible formatting
// characters (bidi overrides, zero-width characters).
func isControl(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r)
}

// SpoolPattern names the temporary files uploads are spooled to, in the
// system's temporary folder (os.CreateTemp's pattern; also a filepath.Match
// pattern). A crash can leave one behind; the sweeper removes them
// (storage.SweepTemp).
const SpoolPattern = "konvoj-upload-*"

// upload is a received file, spooled to a temporary file.
type upload struct {
	file         *os.File
	size         int64
	sha256       string
	mimeType     string
	ext          string
	originalName string
}

// remove deletes the temporary file.
func (u *upload) remove() {
	if u == nil || u.file == nil {
		return
	}
	_ = u.file.Close()
	_ = os.Remove(u.file.Name())
}

// readUpload reads a document upload's multipart body (readForm): the file
// part and the metadata parts.
func readUpload(mr *multipart.Reader, maxBytes int64, docType string) (*upload, change, error) {
	var c change
	ups, err := readForm(mr, maxBytes, form{
		fallback: docType,
		limit: func(name string) int64 {
			switch {
			case name == "meta":
				return maxMetaBytes
			case isMetadataField(name):
				return maxFieldBytes
			}
			return 0
		},
		label: fieldName,
		set:   c.setFormField,
	})
	if err != nil {
		return nil, c, err
	}
	return ups[0], c, nil
}

// form is what an upload's multipart body may carry besides its "file"
// part, and what to do with it.
type form struct {
	// fallback is the stem of the stored original name when the client
	// sends none (the extension of the detected type is added).
	fallback string
	// limit is the largest value of a text part in bytes; 0 for a part the
	// form does not know (skipped).
	limit func(name string) int64
	// label names a part in messages.
	label func(name string) i18n.Message
	// set takes a text part's value; problems go to v.
	set func(v *apperr.Validation, name, value string)
	// maxFiles is how many "file" parts the body may carry (0: one).
	maxFiles int
	// optional: a body without a file is accepted.
	optional bool
}

// readForm reads the multipart body part by part: each file part is
// streamed into a temporary file (hashed and counted on the way, never held
// in memory), the text parts are read and handed to f.set. The parts may
// come in any order; unknown parts are skipped. On error nothing is left
// behind.
func readForm(mr *multipart.Reader, maxBytes int64, f form) (ups []*upload, err error) {
	defer func() {
		if err != nil {
			for _, up := range ups {
				up.remove()
			}
			ups = nil
		}
	}()
	maxFiles := max(f.maxFiles, 1)
	var v apperr.Validation
	seen := map[string]int{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return ups, bodyError(err)
		}
		name := part.FormName()
		limit := f.limit(name)
		if name != "file" && limit == 0 {
			continue // NextPart skips what is left of it
		}
		if seen[name]++; seen[name] > 1 && (name != "file" || seen[name] > maxFiles) {
			if name == "file" && maxFiles > 1 {
				v.Add(name, "msg.documents.too_many_files", "max", maxFiles)
			} else {
				v.Add(name, "msg.documents.repeated", "field", f.label(name))
			}
			continue
		}
		if name == "file" {
			up, err := spool(part, maxBytes, f.fallback)
			if err != nil {
				return ups, err
			}
			if up != nil {
				ups = append(ups, up)
			}
			continue
		}
		value, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return ups, bodyError(err)
		}
		if int64(len(value)) > limit {
			v.Add(name, "msg.documents.part_too_long", "field", f.label(name), "max", limit)
			continue
		}
		if textin.Bad(string(value)) {
			v.Add(name, "msg.common.text_invalid", "field", f.label(name))
			continue
		}
		f.set(&v, name, string(value))
	}
	if len(ups) == 0 && !f.optional {
		v.Add("file", "msg.common.required", "field", f.label("file"))
	}
	return ups, v.Err()
}

func isMetadataField(name string) bool {
	for _, f := range MetadataFields {
		if f == name {
			return true
		}
	}
	return false
}

// spool copies the file part to a temporary file through a SHA-256 hasher,
// reading at most maxBytes+1 bytes, after checking the type from the first
// bytes (so a wrong type is refused before the rest is read).
func spool(part *multipart.Part, maxBytes int64, fallback string) (*upload, error) {
	body := &readErr{r: faults.Reader(faults.MidBody, part, 1<<20)}
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(body, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, bodyError(err)
	}
	head = head[:n]
	if n == 0 && part.FileName() == "" {
		// What a browser sends for a file input left empty: no file.
		return nil, nil
	}
	mimeType, ext, ok := DetectType(head)
	if !ok {
		return nil, apperr.UnsupportedMediaType("msg.documents.file_type")
	}
	if int64(n) > maxBytes {
		return nil, tooLarge(maxBytes)
	}

	tmp, err := os.CreateTemp("", SpoolPattern)
	if err != nil {
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	up := &upload{file: tmp, mimeType: mimeType, ext: ext,
		originalName: SanitizeFilename(part.FileName(), fallback+"."+ext)}
	hash := sha256.New()
	w := io.MultiWriter(tmp, hash)
	if _, err := w.Write(head); err != nil {
		up.remove()
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	copied, err := io.Copy(w, io.LimitReader(body, maxBytes-int64(n)+1))
	if err != nil {
		up.remove()
		if body.err != nil {
			return nil, bodyError(body.err)
		}
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	up.size = int64(n) + copied
	if up.size > maxBytes {
		up.remove()
		return nil, tooLarge(maxBytes)
	}
	up.sha256 = hex.EncodeToString(hash.Sum(nil))
	return up, nil
}

func tooLarge(maxBytes int64) error {
	return apperr.PayloadTooLarge("msg.documents.file_too_large", "max", maxBytes)
}

// bodyError maps a failure to read the request body: the body-size cap
// and the body deadline (already a PayloadTooLarge or RequestTimeout from
// the server's body reader) stay; anything else means the client sent a
// broken multipart body or went away.
func bodyError(err error) error {
	if k := apperr.KindOf(err); k == apperr.KindPayloadTooLarge || k == apperr.KindRequestTimeout {
		return err
	}
	return apperr.Wrap(err, apperr.KindBadRequest, "msg.documents.body_broken")
}

// readErr remembers a read error, to tell a broken upload (400) from a
// failing temporary disk (500) after io.Copy.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
	}
	return n, err
}

// rewind positions the spooled file at its start for the store.
func (u *upload) rewind() error {
	if _, err := u.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind spooled upload: %w", err)
	}
	return nil
}
