// Package migrations embeds the numbered SQL migrations (goose format) so the
// binary can apply them at start and tests can build migrated databases.
//
// Files are named NNNNN_description.sql; each has a "-- +goose Up" and a
// "-- +goose Down" section. Never edit an applied migration: add a new one.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
