package web

import (
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
)

// PathID reads a UUID path parameter, for the API and the pages alike. Text
// that is not a UUID becomes uuid.Nil, which names no record: the area's
// access check then answers 404 NotFound, but only after its role check, so the
// errors keep their documented order (an accountant deleting
// /drivers/xyz gets 403 Forbidden, not 404).
func PathID(c echo.Context, name string) uuid.UUID {
	id, err := uuid.Parse(c.Param(name))
	if err != nil {
		return uuid.Nil
	}
	return id
}
