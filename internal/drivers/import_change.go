package drivers

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
)

// idKey is the name of the row's record id in JSON: driver_id, or
// vehicle_id / trailer_id for an import of the fleet.
func (c RowChange) idKey() string {
	if c.Holder == "" || c.Holder == "driver" {
		return "driver_id"
	}
	return c.Holder + "_id"
}

// MarshalJSON writes {row, action, <holder>_id, fields}.
func (c RowChange) MarshalJSON() ([]byte, error) {
	id, err := json.Marshal(c.DriverID)
	if err != nil {
		return nil, err
	}
	fields := c.Fields
	if fields == nil {
		fields = map[string]FieldChange{}
	}
	f, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	action, _ := json.Marshal(c.Action)
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"row":%d,"action":%s,%q:%s,"fields":%s}`, c.Row, action, c.idKey(), id, f)
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON wrote (an import's stored changes).
func (c *RowChange) UnmarshalJSON(data []byte) error {
	var raw struct {
		Row       int                    `json:"row"`
		Action    string                 `json:"action"`
		DriverID  *uuid.UUID             `json:"driver_id"`
		VehicleID *uuid.UUID             `json:"vehicle_id"`
		TrailerID *uuid.UUID             `json:"trailer_id"`
		Fields    map[string]FieldChange `json:"fields"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	*c = RowChange{Row: raw.Row, Action: raw.Action, DriverID: raw.DriverID, Fields: raw.Fields}
	if _, ok := keys["vehicle_id"]; ok {
		c.Holder, c.DriverID = "vehicle", raw.VehicleID
	}
	if _, ok := keys["trailer_id"]; ok {
		c.Holder, c.DriverID = "trailer", raw.TrailerID
	}
	return nil
}
