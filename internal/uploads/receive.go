package uploads

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"strings"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/faults"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/textin"
)

// Received is a received file (ReceiveFile, ReadForm): spooled to a
// temporary file, its type detected from the content, its size and
// SHA-256 known. Remove deletes the temporary file.
type Received struct {
	file         *os.File
	size         int64
	sha256       string
	mimeType     string
	ext          string
	originalName string
	// unnamed: the client sent no usable name (originalName is the
	// fallback's).
	unnamed bool
}

// Remove deletes the temporary file.
func (r *Received) Remove() {
	if r == nil || r.file == nil {
		return
	}
	_ = r.file.Close()
	_ = os.Remove(r.file.Name())
}

// Size is the file's size in bytes.
func (r *Received) Size() int64 { return r.size }

// SHA256 is the lower-case hex SHA-256 of the file.
func (r *Received) SHA256() string { return r.sha256 }

// MimeType is the type detected from the content.
func (r *Received) MimeType() string { return r.mimeType }

// Ext is the extension of stored files of the detected type.
func (r *Received) Ext() string { return r.ext }

// OriginalName is the client's file name, sanitized (SanitizeFilename).
func (r *Received) OriginalName() string { return r.originalName }

// NameOr is OriginalName, or stem with the detected type's extension when
// the client sent no usable name: for a caller that knows the stem only
// once the body is read (a document's type).
func (r *Received) NameOr(stem string) string {
	if r.unnamed {
		return stem + "." + r.ext
	}
	return r.originalName
}

// ReceiveFile reads a multipart upload body with the checks of a document
// upload (docs/drivers-and-documents.md): the "file" part is required, its
// type detected from the content (415 when not allowed), at most maxBytes
// (413), hashed while spooled. fields are the text parts the body may carry
// besides (name → largest value in bytes); their values are returned, blank
// ones left out. label names a part in messages; fallback is the stem of
// the original name when the client sends none. The caller removes the
// file.
func ReceiveFile(mr *multipart.Reader, maxBytes int64, fallback string, fields map[string]int64,
	label func(string) i18n.Message) (*Received, map[string]string, error) {
	files, values, err := receive(mr, maxBytes, Form{Fallback: fallback, Limit: limitOf(fields), Label: label})
	if err != nil {
		return nil, values, err
	}
	return files[0], values, nil
}

// ReceiveFiles is ReceiveFile for a form whose "file" parts are optional
// and may be up to maxFiles (a file input with multiple): each file is
// checked alike, and the whole body is refused if one is refused. A
// refused body still answers the text parts read before the refusal, so a
// page can show its form again with them.
func ReceiveFiles(mr *multipart.Reader, maxBytes int64, maxFiles int, fallback string, fields map[string]int64,
	label func(string) i18n.Message) ([]*Received, map[string]string, error) {
	return receive(mr, maxBytes, Form{Fallback: fallback, Limit: limitOf(fields), Label: label, MaxFiles: maxFiles, Optional: true})
}

func limitOf(fields map[string]int64) func(string) int64 {
	return func(name string) int64 { return fields[name] }
}

func receive(mr *multipart.Reader, maxBytes int64, f Form) ([]*Received, map[string]string, error) {
	values := map[string]string{}
	f.Set = func(_ *apperr.Validation, name, value string) {
		if strings.TrimSpace(value) != "" {
			values[name] = value
		}
	}
	files, err := ReadForm(mr, maxBytes, f)
	if err != nil {
		return nil, values, err // what was read before, to show the form again
	}
	return files, values, nil
}

// Form is what an upload's multipart body may carry besides its "file"
// part, and what to do with it.
type Form struct {
	// Fallback is the stem of the stored original name when the client
	// sends none (the extension of the detected type is added).
	Fallback string
	// Limit is the largest value of a text part in bytes; 0 for a part the
	// form does not know (skipped).
	Limit func(name string) int64
	// Label names a part in messages.
	Label func(name string) i18n.Message
	// Set takes a text part's value; problems go to v.
	Set func(v *apperr.Validation, name, value string)
	// MaxFiles is how many "file" parts the body may carry (0: one).
	MaxFiles int
	// Optional: a body without a file is accepted.
	Optional bool
}

// ReadForm reads the multipart body part by part: each file part is
// streamed into a temporary file (hashed and counted on the way, never held
// in memory), the text parts are read and handed to f.Set. The parts may
// come in any order; unknown parts are skipped. On error nothing is left
// behind.
func ReadForm(mr *multipart.Reader, maxBytes int64, f Form) (ups []*Received, err error) {
	defer func() {
		if err != nil {
			for _, up := range ups {
				up.Remove()
			}
			ups = nil
		}
	}()
	maxFiles := max(f.MaxFiles, 1)
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
		limit := f.Limit(name)
		if name != "file" && limit == 0 {
			continue // NextPart skips what is left of it
		}
		if seen[name]++; seen[name] > 1 && (name != "file" || seen[name] > maxFiles) {
			if name == "file" && maxFiles > 1 {
				v.Add(name, "msg.documents.too_many_files", "max", maxFiles)
			} else {
				v.Add(name, "msg.documents.repeated", "field", f.Label(name))
			}
			continue
		}
		if name == "file" {
			up, err := spool(part, maxBytes, f.Fallback)
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
			v.Add(name, "msg.documents.part_too_long", "field", f.Label(name), "max", limit)
			continue
		}
		if textin.Bad(string(value)) {
			v.Add(name, "msg.common.text_invalid", "field", f.Label(name))
			continue
		}
		f.Set(&v, name, string(value))
	}
	if len(ups) == 0 && !f.Optional {
		v.Add("file", "msg.common.required", "field", f.Label("file"))
	}
	return ups, v.Err()
}

// spool copies the file part to a temporary file through a SHA-256 hasher,
// reading at most maxBytes+1 bytes, after checking the type from the first
// bytes (so a wrong type is refused before the rest is read).
func spool(part *multipart.Part, maxBytes int64, fallback string) (*Received, error) {
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
	up := &Received{file: tmp, mimeType: mimeType, ext: ext, originalName: SanitizeFilename(part.FileName(), "")}
	if up.unnamed = up.originalName == ""; up.unnamed {
		up.originalName = fallback + "." + ext
	}
	hash := sha256.New()
	w := io.MultiWriter(tmp, hash)
	if _, err := w.Write(head); err != nil {
		up.Remove()
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	copied, err := io.Copy(w, io.LimitReader(body, maxBytes-int64(n)+1))
	if err != nil {
		up.Remove()
		if body.err != nil {
			return nil, bodyError(body.err)
		}
		return nil, fmt.Errorf("spool upload: %w", err)
	}
	up.size = int64(n) + copied
	if up.size > maxBytes {
		up.Remove()
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
func (u *Received) rewind() error {
	if _, err := u.file.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewind spooled upload: %w", err)
	}
	return nil
}
