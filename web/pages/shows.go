package pages

import "github.com/konvoj/konvoj/internal/auth"

// What a page shows of what a caller may do: a link, a button, a section,
// a menu entry. These decide nothing: the services refuse whatever the
// caller may not do, whatever a page shows (docs/development.md, "Access").
// They only spare people links that would answer 403.

// shows reports whether the caller's role may use action a at all.
func shows(pr auth.Principal, a auth.Action) bool { return pr.Grant(a) != auth.Deny }

// showsAll reports whether the caller may use action a on every record of
// the company (not only its own, not statuses only).
func showsAll(pr auth.Principal, a auth.Action) bool { return pr.Grant(a) == auth.All }

// ownOnly reports whether the caller sees only its own records of action a
// (a driver): its pages go to its own record instead of a list.
func ownOnly(pr auth.Principal, a auth.Action) bool { return pr.Grant(a) == auth.Own }
