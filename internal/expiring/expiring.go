// Package expiring holds what the process's short-lived caches share: a map
// kept under a size bound by dropping its expired entries first, and all of
// them when none had expired (docs/security.md, "Tokens" and "The caller").
package expiring

// MakeRoom readies m, a cache of at most max entries, for one more: when it
// is full, the entries expired says are expired go, and when none were, all
// of them (a burst of new keys empties the cache rather than growing it).
// The caller holds the lock that guards m.
func MakeRoom[K comparable, E any](m map[K]E, max int, expired func(E) bool) {
	if len(m) < max {
		return
	}
	for k, e := range m {
		if expired(e) {
			delete(m, k)
		}
	}
	if len(m) >= max {
		clear(m)
	}
}
