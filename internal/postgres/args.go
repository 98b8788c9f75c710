package postgres

import "strconv"

// Args numbers the values of a statement that is built from fixed SQL
// fragments as they are written into it, so that every value travels as a
// parameter and never as SQL text.
type Args struct {
	Values []any
}

// Add appends v and returns its placeholder ($1, $2, …).
func (a *Args) Add(v any) string {
	a.Values = append(a.Values, v)
	return "$" + strconv.Itoa(len(a.Values))
}
