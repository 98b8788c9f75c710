package tenants

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/expiring"
)

// PrincipalTTL is how long a resolved principal is reused for the same
// verified identity in this process (docs/security.md, "The caller"). A
// change made through this process is seen at once (CompanyChanged, the
// language setter); one made elsewhere (another instance, an operator's
// SQL) is seen within this time.
const PrincipalTTL = 5 * time.Second

// maxPrincipals bounds the cache: when it is full, expired entries go, and
// if none had expired, all of them.
const maxPrincipals = 10_000

// principals is the process's principal cache: every tenants.Service in the
// process shares it, so that a write through any service (or a fixture)
// invalidates what every server in the process would reuse.
var principals = principalCache{
	entries: map[auth.Identity]cachedPrincipal{},
	company: map[uuid.UUID]uint64{},
	user:    map[uuid.UUID]uint64{},
}

// principalCache holds resolved principals by the identity their token
// verified. A change bumps the generation of the company or the user it
// concerns; an entry is good only while both generations are the ones read
// before its lookup ran, so a lookup that raced a change (it read the old
// rows, then stored after the change was announced) is never reused.
type principalCache struct {
	mu      sync.RWMutex
	entries map[auth.Identity]cachedPrincipal
	company map[uuid.UUID]uint64 // generation per company
	user    map[uuid.UUID]uint64 // generation per user
}

type cachedPrincipal struct {
	p                 auth.Principal
	companyGen, userG uint64
	expires           time.Time
}

// generations are the company's and the user's generations now, read
// before a lookup so its result can be stored under them.
func (c *principalCache) generations(company, user uuid.UUID) (uint64, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.company[company], c.user[user]
}

// get returns the principal resolved for the identity, if one was stored
// less than PrincipalTTL ago and nothing it holds has changed since.
func (c *principalCache) get(id auth.Identity, now time.Time) (auth.Principal, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.entries[id]
	if !ok || !now.Before(e.expires) || e.companyGen != c.company[e.p.CompanyID] || e.userG != c.user[e.p.UserID] {
		return auth.Principal{}, false
	}
	p := e.p
	if p.DriverID != nil {
		d := *p.DriverID // each request its own: nothing it does reaches the cache
		p.DriverID = &d
	}
	return p, true
}

// put stores a principal resolved from rows read at the given generations.
func (c *principalCache) put(id auth.Identity, p auth.Principal, companyGen, userGen uint64, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	expiring.MakeRoom(c.entries, maxPrincipals, func(e cachedPrincipal) bool { return !now.Before(e.expires) })
	c.entries[id] = cachedPrincipal{p: p, companyGen: companyGen, userG: userGen, expires: now.Add(PrincipalTTL)}
}

func (c *principalCache) companyChanged(company uuid.UUID) {
	c.mu.Lock()
	c.company[company]++
	c.mu.Unlock()
}

func (c *principalCache) userChanged(user uuid.UUID) {
	c.mu.Lock()
	c.user[user]++
	c.mu.Unlock()
}

// CompanyChanged drops every principal of the company this process holds.
// Call it after committing a change to something a principal is resolved
// from: the company's settings (tier, time zone, currency, default
// language), a user, or a driver's e-mail or existence (a driver caller is
// linked to the live driver with its e-mail). Calling it before the commit
// is not enough: a request could read the old rows and store them anew.
func CompanyChanged(company uuid.UUID) { principals.companyChanged(company) }
