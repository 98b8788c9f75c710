package i18n

// The messages of the API's change feed and idempotency keys
// (docs/change-feed.md, docs/idempotency.md). Staff-only (msg.list.,
// msg.api.): API clients read English.
func init() {
	Add(EN, map[string]string{
		"msg.list.updated_since":         "The updated_since must be an RFC 3339 date and time (2026-01-31T08:00:00Z).",
		"msg.list.include_deleted":       "The include_deleted must be true or false.",
		"msg.list.include_deleted_alone": "The include_deleted works with updated_since (the change feed) only.",
		"msg.list.feed_sort":             "The change feed is always ordered by updated_at; send it without sort_by and sort_order.",
		"msg.api.idempotency_key":        "The Idempotency-Key header must be 1 to {max} printable ASCII characters.",
		"msg.api.idempotency_reused":     "This Idempotency-Key was used for another request (another body, path, user or role); use a new key.",
		"msg.api.idempotency_running":    "A request with this Idempotency-Key is still running; retry when it has finished.",
	})
	Add(CS, map[string]string{
		"msg.list.updated_since":         "Parametr updated_since musí být datum a čas podle RFC 3339 (2026-01-31T08:00:00Z).",
		"msg.list.include_deleted":       "Parametr include_deleted musí být true, nebo false.",
		"msg.list.include_deleted_alone": "Parametr include_deleted funguje jen s updated_since (přehled změn).",
		"msg.list.feed_sort":             "Přehled změn je vždy seřazen podle updated_at; pošlete jej bez sort_by a sort_order.",
		"msg.api.idempotency_key":        "Hlavička Idempotency-Key musí mít 1 až {max} tisknutelných znaků ASCII.",
		"msg.api.idempotency_reused":     "Tento Idempotency-Key už byl použit pro jiný požadavek (jiné tělo, cestu, uživatele nebo roli); použijte nový klíč.",
		"msg.api.idempotency_running":    "Požadavek s tímto Idempotency-Key ještě běží; zopakujte jej, až skončí.",
	})
}
