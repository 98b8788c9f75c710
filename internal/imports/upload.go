package imports

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"strconv"
	"strings"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/drivers"
)

// MaxBytes is the largest import file: the upload limit (UPLOAD_MAX_BYTES);
// a larger one is 413.
func (s *Service) MaxBytes() int64 { return s.maxBytes }

// readUpload reads an import request: the part file (at most maxBytes,
// else 413), and optional parts dry_run (true or false; default true), mode
// (all_or_nothing, the default, or valid_rows) and mapping (a JSON object
// header → field). dryRun and mode are the query's values when the body
// has none ("" for none).
func readUpload(mr *multipart.Reader, maxBytes int64, dryRun, mode string) (Upload, error) {
	u := Upload{DryRun: true}
	var v apperr.Validation
	haveFile := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if apperr.KindOf(err) != apperr.KindInternal {
				return Upload{}, err
			}
			return Upload{}, apperr.Wrap(err, apperr.KindBadRequest, "msg.documents.not_multipart")
		}
		switch part.FormName() {
		case "file":
			data, err := io.ReadAll(io.LimitReader(part, maxBytes+1))
			if err != nil {
				if apperr.KindOf(err) != apperr.KindInternal {
					return Upload{}, err
				}
				return Upload{}, fmt.Errorf("read import file: %w", err)
			}
			if int64(len(data)) > maxBytes {
				return Upload{}, apperr.PayloadTooLarge("msg.documents.file_too_large", "max", maxBytes)
			}
			u.Data, u.Filename, haveFile = data, part.FileName(), true
		case "dry_run":
			b, _ := io.ReadAll(io.LimitReader(part, 16))
			dryRun = string(b)
		case "mode":
			b, _ := io.ReadAll(io.LimitReader(part, 32))
			mode = string(b)
		case "mapping":
			b, _ := io.ReadAll(io.LimitReader(part, 64<<10))
			if err := json.Unmarshal(b, &u.Mapping); err != nil {
				v.Add("mapping", "msg.imports.mapping")
			}
		}
		part.Close()
	}
	if dryRun != "" {
		b, err := strconv.ParseBool(dryRun)
		if err != nil {
			v.Add("dry_run", "msg.imports.dry_run")
		}
		u.DryRun = b
	}
	m, ok := ReadMode(mode)
	if !ok {
		v.Add("mode", "msg.imports.mode")
	}
	u.Mode = m
	if !haveFile {
		v.Add("file", "msg.imports.file")
	}
	return u, v.Err()
}

// ReadMode reads an import's mode: all_or_nothing ("" too) or valid_rows;
// ok is false for anything else (the caller refuses it, as msg.imports.mode).
func ReadMode(s string) (mode string, ok bool) {
	switch strings.TrimSpace(s) {
	case "", drivers.ModeAllOrNothing:
		return drivers.ModeAllOrNothing, true
	case drivers.ModeValidRows:
		return drivers.ModeValidRows, true
	}
	return "", false
}
