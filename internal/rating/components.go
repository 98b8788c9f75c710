package rating

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Components is a rating's components object: the ComponentView of each
// metric, keyed by metric name. A rating computed at read time holds the
// views. A stored snapshot holds the object as PostgreSQL returned it and
// an answer writes those bytes as they are: a past month's read neither
// decodes nor re-encodes six components (docs/performance.md, "Stored
// components"). The pages, which show the values, call Views.
type Components struct {
	views map[string]ComponentView
	raw   []byte
}

// NewComponents holds computed views.
func NewComponents(views map[string]ComponentView) Components {
	return Components{views: views}
}

// Views is the components keyed by metric; a stored object is decoded.
func (c Components) Views() (map[string]ComponentView, error) {
	if c.raw == nil {
		if c.views == nil {
			return map[string]ComponentView{}, nil
		}
		return c.views, nil
	}
	views := map[string]ComponentView{}
	if err := json.Unmarshal(c.raw, &views); err != nil {
		return nil, fmt.Errorf("decode stored components: %w", err)
	}
	return views, nil
}

// MarshalJSON writes the stored object unchanged (the encoder compacts
// PostgreSQL's spacing), or the views; no components are {}.
func (c Components) MarshalJSON() ([]byte, error) {
	switch {
	case c.raw != nil:
		return c.raw, nil
	case c.views == nil:
		return []byte("{}"), nil
	}
	return json.Marshal(c.views)
}

// ScanBytes keeps a copy of a stored components object: pgx passes the
// jsonb column's text in a buffer it reuses for the next row.
func (c *Components) ScanBytes(src []byte) error {
	*c = Components{}
	if src != nil {
		c.raw = bytes.Clone(src)
	}
	return nil
}
