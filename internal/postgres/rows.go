package postgres

import "github.com/jackc/pgx/v5"

// AppendRows appends every row of rows to s, each scanned by scan straight
// into its element of s, and closes rows. It is how a store collects rows
// into structs it scans field by field; pgx.CollectRows with pgx.RowTo
// stays the way to collect a single column.
//
// pgx.CollectRows asks its function for each row by value, and a struct
// whose fields are handed to Scan (an interface) escapes to the heap: one
// allocation of the whole struct per row, copied into the slice after.
// Scanning in place allocates nothing per row, so a page's allocations do
// not grow with its rows' size (docs/performance.md, "Scanning rows in
// place"). s may be preallocated to the rows expected (a page's size).
// The result is never nil without an error, so that no rows encode as an
// empty JSON array, as with pgx.CollectRows; on an error it is nil.
func AppendRows[T any](s []T, rows pgx.Rows, scan func(row pgx.Row, into *T) error) ([]T, error) {
	defer rows.Close()
	if s == nil {
		s = []T{}
	}
	for rows.Next() {
		var zero T
		s = append(s, zero)
		if err := scan(rows, &s[len(s)-1]); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return s, nil
}
