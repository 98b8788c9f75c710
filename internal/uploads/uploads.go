// Package uploads receives uploaded files and stores them: a multipart
// body is streamed into a temporary spool file while its type (from the
// content), size and SHA-256 are checked (ReceiveFile, ReadForm); the
// object is written to the file store inside the transaction that inserts
// its row, behind a committed pending record (StoreInTx), so a crash at
// any point leaves either the row or the record, and the sweeper
// (SweepOrphans) deletes the objects of records whose row never committed
// (docs/security.md, "Uploads and crashes"). Document files and penalty
// evidence are received and stored this way; what a row holds is the
// caller's.
package uploads

import (
	"encoding/binary"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

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
		if textin.IsControl(r) {
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

// SpoolPattern names the temporary files uploads are spooled to, in the
// system's temporary folder (os.CreateTemp's pattern; also a filepath.Match
// pattern). A crash can leave one behind; the sweeper removes them
// (storage.SweepTemp).
const SpoolPattern = "konvoj-upload-*"
