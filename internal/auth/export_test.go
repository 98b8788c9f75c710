package auth

import "time"

// SetNow sets the verifier's clock, for tests of expiry.
func (v *Verifier) SetNow(now func() time.Time) { v.now = now }
