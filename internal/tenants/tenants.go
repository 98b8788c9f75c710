// Package tenants holds companies (the tenants) and their users, and turns a
// verified identity into a Principal: the company must exist, the user row is
// provisioned just in time, a driver caller is linked to its driver record.
package tenants

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/textin"
)

// Tiers are the subscription tiers, cheapest first.
var Tiers = []string{"free", "starter", "professional", "business", "enterprise"}

// Company is a tenant.
type Company struct {
	ID               uuid.UUID
	Name             string
	CountryCode      string
	Currency         string
	DefaultLanguage  string
	Timezone         string
	SubscriptionTier string
	Settings         map[string]any
	CreatedAt        time.Time
}

// NewCompany is the input of Create.
type NewCompany struct {
	Name, Tier, Currency, Country, Timezone, Language string
}

// Service manages companies and users.
type Service struct {
	// db runs everything a request does, under row-level security in the
	// server (the request pool).
	db *pgxpool.Pool
	// system, the owner's pool, runs only what spans companies: creating a
	// company (an operator's step) and the development sign-in directory.
	system *pgxpool.Pool
}

// NewService returns a tenants service on one pool, for operator commands
// and tests, which run as the owner.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db, system: db} }

// NewRequestService returns the server's tenants service: requests on the
// request pool, the cross-company steps on the system pool.
func NewRequestService(requests, system *pgxpool.Pool) *Service {
	return &Service{db: requests, system: system}
}

// Validate checks a new company's fields and fills defaults (docs/operations.md).
func (n *NewCompany) Validate() error {
	var v apperr.Validation
	n.Name = strings.TrimSpace(textin.StripBidi(n.Name))
	if n.Name == "" {
		v.Add("name", "msg.common.required", "field", i18n.M("field.tenant.name"))
	} else if len([]rune(n.Name)) > 200 {
		v.Add("name", "msg.common.too_long", "field", i18n.M("field.tenant.name"), "max", 200)
	}
	if n.Tier == "" {
		n.Tier = "free"
	}
	if !contains(Tiers, n.Tier) {
		v.Add("tier", "msg.tenants.tier", "allowed", Tiers)
	}
	if n.Currency == "" {
		n.Currency = "CZK"
	}
	if c, ok := money.NormalizeCurrency(n.Currency); !ok {
		v.Add("currency", "msg.common.currency", "value", n.Currency)
	} else {
		n.Currency = c
	}
	if n.Country == "" {
		n.Country = "CZ"
	}
	n.Country = countries.Normalize(n.Country)
	if !countries.Valid(n.Country) {
		v.Add("country", "msg.tenants.country")
	}
	if n.Timezone == "" {
		n.Timezone = "Europe/Prague"
	}
	if _, err := time.LoadLocation(n.Timezone); err != nil || n.Timezone == "Local" {
		v.Add("timezone", "msg.tenants.timezone")
	}
	if n.Language == "" {
		n.Language = "cs"
	}
	n.Language = strings.ToLower(n.Language)
	if len(n.Language) != 2 || strings.Trim(n.Language, "abcdefghijklmnopqrstuvwxyz") != "" {
		v.Add("language", "msg.tenants.language")
	}
	return v.Err()
}

// Create validates and stores a company (the database adds its default
// rating configuration).
func (s *Service) Create(ctx context.Context, n NewCompany) (Company, error) {
	if err := n.Validate(); err != nil {
		return Company{}, err
	}
	var c Company
	err := s.system.QueryRow(ctx, `
		INSERT INTO companies (name, subscription_tier, currency, country_code, timezone, default_language)
		VALUES ($1, $2, $3, $4, $5, $6)
		RETURNING id, name, country_code, currency, default_language, timezone, subscription_tier, settings, created_at`,
		n.Name, n.Tier, n.Currency, n.Country, n.Timezone, n.Language,
	).Scan(&c.ID, &c.Name, &c.CountryCode, &c.Currency, &c.DefaultLanguage, &c.Timezone, &c.SubscriptionTier, &c.Settings, &c.CreatedAt)
	if err != nil {
		return Company{}, fmt.Errorf("create company %q: %w", n.Name, err)
	}
	return c, nil
}

// Get returns a company by id.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (Company, error) {
	var c Company
	err := s.db.QueryRow(ctx, `
		SELECT id, name, country_code, currency, default_language, timezone, subscription_tier, settings, created_at
		FROM companies WHERE id = $1`, id,
	).Scan(&c.ID, &c.Name, &c.CountryCode, &c.Currency, &c.DefaultLanguage, &c.Timezone, &c.SubscriptionTier, &c.Settings, &c.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Company{}, apperr.NotFound("msg.common.not_found.company")
	}
	if err != nil {
		return Company{}, fmt.Errorf("get company %s: %w", id, err)
	}
	return c, nil
}

// Principal resolves a verified identity: the company must exist (else 403
// AccessDenied), the user row is provisioned just in time, and a driver
// caller is linked by e-mail. A deactivated user is 403 Forbidden, and a
// subject that is a user of another company 403 AccessDenied: a user never
// changes company through a token (docs/security.md, "The caller"). The
// common case is one plain SELECT; the user row is written only when it is
// missing, something in the token changed, or the last sign-in is over five
// minutes old.
//
// The lookup runs under row-level security for the company the verified
// token names: it can see that company and nothing else, and finding no
// company row means there is no such company for this caller.
//
// A resolved principal is reused for the same identity for PrincipalTTL
// (principalCache): most requests then run no statement for it.
func (s *Service) Principal(ctx context.Context, id auth.Identity) (auth.Principal, error) {
	if p, ok := principals.get(id, time.Now()); ok {
		return p, nil
	}
	return s.resolve(ctx, id)
}

// SignInPrincipal is Principal for a new sign-in: it looks past the cache,
// so that a user deactivated a moment ago, by SQL or on another instance,
// gets no session. Sign-ins are rare; the principal it resolves is cached
// for the requests that follow.
func (s *Service) SignInPrincipal(ctx context.Context, id auth.Identity) (auth.Principal, error) {
	return s.resolve(ctx, id)
}

// resolve is Principal's lookup, its result cached.
func (s *Service) resolve(ctx context.Context, id auth.Identity) (auth.Principal, error) {
	now := time.Now()
	companyID, err := uuid.Parse(id.CompanyID)
	if err != nil {
		return auth.Principal{}, apperr.AccessDenied()
	}
	ctx = postgres.WithCompany(ctx, companyID)
	userID := id.UserID()
	companyGen, userGen := principals.generations(companyID, userID)
	p := auth.Principal{UserID: userID, CompanyID: companyID, Role: id.Role, Email: id.Email}
	var (
		driverID          *uuid.UUID
		prefLang, defLang *string
		firstName, last   *string
		// active is the user row's is_active, nil when no row of this
		// company was seen (none yet, another company's, or one a racing
		// first request inserted after this statement's snapshot).
		active *bool
	)
	// The upsert never changes a row's company (its WHERE) nor is_active.
	upsert := func() error {
		return s.db.QueryRow(ctx, `
		WITH c AS (
			SELECT id, subscription_tier, timezone, currency, country_code, default_language FROM companies WHERE id = $1
		), u AS (
			INSERT INTO users AS usr (id, company_id, external_id, email, role, first_name, last_name, last_login_at)
			SELECT $2, c.id, $3, $4, $5, NULLIF($6, ''), NULLIF($7, ''), now() FROM c
			ON CONFLICT (id) DO UPDATE SET
				email = excluded.email, role = excluded.role,
				first_name = COALESCE(excluded.first_name, usr.first_name),
				last_name = COALESCE(excluded.last_name, usr.last_name),
				last_login_at = now(), updated_at = now()
			WHERE usr.company_id = excluded.company_id AND usr.is_active
				AND (usr.email <> excluded.email OR usr.role <> excluded.role
				OR usr.last_login_at IS NULL OR usr.last_login_at < now() - interval '5 minutes'
				OR (excluded.first_name IS NOT NULL AND usr.first_name IS DISTINCT FROM excluded.first_name))
			RETURNING usr.preferred_language, usr.first_name, usr.last_name, usr.is_active
		), mine AS (
			SELECT preferred_language, first_name, last_name, is_active FROM users WHERE id = $2 AND company_id = $1
		)
		SELECT c.subscription_tier, c.timezone, c.currency, c.country_code, c.default_language,
			COALESCE((SELECT preferred_language FROM u), (SELECT preferred_language FROM mine)),
			COALESCE((SELECT first_name FROM u), (SELECT first_name FROM mine)),
			COALESCE((SELECT last_name FROM u), (SELECT last_name FROM mine)),
			COALESCE((SELECT is_active FROM u), (SELECT is_active FROM mine)),
			CASE WHEN $5 = 'driver' AND $4 <> '' THEN
				(SELECT d.id FROM drivers d WHERE d.company_id = c.id AND lower(d.email) = lower($4) AND d.deleted_at IS NULL LIMIT 1)
			END
		FROM c`,
			companyID, userID, id.Subject, id.Email, string(id.Role), id.FirstName, id.LastName,
		).Scan(&p.CompanyTier, &p.CompanyTimezone, &p.CompanyCurrency, &p.CompanyCountry, &defLang, &prefLang, &firstName, &last, &active, &driverID)
	}
	var fresh bool
	err = s.db.QueryRow(ctx, `
		SELECT c.subscription_tier, c.timezone, c.currency, c.country_code, c.default_language,
			u.preferred_language, u.first_name, u.last_name, u.is_active,
			COALESCE(u.email = $3 AND u.role = $4
				AND u.last_login_at >= now() - interval '5 minutes'
				AND ($5 = '' OR u.first_name IS NOT DISTINCT FROM $5), false),
			CASE WHEN $4 = 'driver' AND $3 <> '' THEN
				(SELECT d.id FROM drivers d WHERE d.company_id = c.id AND lower(d.email) = lower($3) AND d.deleted_at IS NULL LIMIT 1)
			END
		FROM companies c LEFT JOIN users u ON u.id = $2 AND u.company_id = c.id
		WHERE c.id = $1`,
		companyID, userID, id.Email, string(id.Role), id.FirstName,
	).Scan(&p.CompanyTier, &p.CompanyTimezone, &p.CompanyCurrency, &p.CompanyCountry, &defLang, &prefLang, &firstName, &last, &active, &fresh, &driverID)
	if err == nil && !fresh && (active == nil || *active) {
		err = upsert()
	}
	// Two first requests of a new user race: ON CONFLICT (id) arbitrates
	// only the id, so the loser trips over users_external_id_key instead.
	// The row exists now, and a second try takes the update path.
	if postgres.IsUniqueViolation(err, "users_external_id_key") {
		err = upsert()
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return auth.Principal{}, apperr.AccessDenied()
	}
	// The user row may be another company's: under row-level security the
	// upsert may not touch it (a policy violation), and on the owner's pool
	// its WHERE leaves it alone and no row of this company comes back. So
	// does a first request that lost a race to insert the row (its snapshot
	// predates the winner's): the owner is asked.
	if postgres.IsRowSecurityViolation(err) || (err == nil && active == nil) {
		owner, found, cerr := postgres.CompanyOf(ctx, s.db, "users", userID)
		switch {
		case cerr != nil:
			return auth.Principal{}, fmt.Errorf("resolve principal for user %s: %w", userID, cerr)
		case found && owner != companyID:
			return auth.Principal{}, apperr.New(apperr.KindAccessDenied, "msg.auth.other_company")
		case err != nil:
			return auth.Principal{}, fmt.Errorf("resolve principal for user %s: %w", userID, err)
		}
	}
	if err != nil {
		return auth.Principal{}, fmt.Errorf("resolve principal for user %s: %w", userID, err)
	}
	if active != nil && !*active {
		return auth.Principal{}, apperr.Forbiddenf("msg.auth.deactivated")
	}
	if id.EmailUnverified {
		driverID = nil // an unverified e-mail links to no driver record
	}
	p.DriverID = driverID
	p.Language = deref(defLang)
	if l := deref(prefLang); l != "" {
		p.Language, p.PreferredLanguage = l, l
	}
	p.Name = strings.TrimSpace(deref(firstName) + " " + deref(last))
	if p.Name == "" {
		p.Name = id.Email
	}
	principals.put(id, p, companyGen, userGen, now)
	return p, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
