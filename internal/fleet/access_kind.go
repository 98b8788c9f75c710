package fleet

import "github.com/konvoj/konvoj/internal/holders"

// Kind is a fleet record's kind, vehicle or trailer (holders.FleetKind),
// as the import, the export and their callers name it.
type Kind = holders.FleetKind
