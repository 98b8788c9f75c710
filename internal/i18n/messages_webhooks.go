package i18n

// Messages of webhook endpoints (docs/webhooks.md) and the notification
// that one was disabled. Admins only: staff-only keys.
func init() {
	Add(EN, map[string]string{
		"msg.webhooks.not_found":          "Webhook endpoint not found.",
		"msg.webhooks.delivery_not_found": "Delivery not found.",
		"msg.webhooks.url_invalid":        "The URL must be an absolute https:// address.",
		"msg.webhooks.url_https":          "The URL must use https.",
		"msg.webhooks.url_credentials":    "The URL may not contain a user name or password.",
		"msg.webhooks.url_private":        "The URL points to a local, private or reserved network address, which webhooks may not reach.",
		"msg.webhooks.url_unresolvable":   "The URL's host name could not be found.",
		"msg.webhooks.url_port":           "The URL's port must be a number from 1 to 65535.",
		"msg.webhooks.events_required":    "Choose at least one event.",
		"msg.webhooks.event_unknown":      "“{event}” is not an event Konvoj sends.",
		"msg.webhooks.test_disabled":      "The endpoint is disabled. Enable it to send a test event.",
		"msg.webhooks.limit":              "A company can have at most {max} webhook endpoints. Delete one it no longer needs first.",
		"field.webhook.url":               "URL",
		"field.webhook.description":       "description",
		"notify.webhook_disabled.title":   "Webhook disabled: {url}",
		"notify.webhook_disabled.body":    "Deliveries to it failed for 5 days. Fix the receiver, then enable the endpoint again.",
	})
	Add(CS, map[string]string{
		"msg.webhooks.not_found":          "Webhook nebyl nalezen.",
		"msg.webhooks.delivery_not_found": "Doručení nebylo nalezeno.",
		"msg.webhooks.url_invalid":        "URL musí být úplná adresa https://.",
		"msg.webhooks.url_https":          "URL musí používat https.",
		"msg.webhooks.url_credentials":    "URL nesmí obsahovat uživatelské jméno ani heslo.",
		"msg.webhooks.url_private":        "URL míří na místní, soukromou nebo vyhrazenou síťovou adresu, kam webhooky posílat nesmí.",
		"msg.webhooks.url_unresolvable":   "Název serveru v URL se nepodařilo najít.",
		"msg.webhooks.url_port":           "Port v URL musí být číslo od 1 do 65535.",
		"msg.webhooks.events_required":    "Vyberte alespoň jednu událost.",
		"msg.webhooks.event_unknown":      "„{event}“ není událost, kterou Konvoj posílá.",
		"msg.webhooks.test_disabled":      "Webhook je vypnutý. Zapněte ho, abyste mohli poslat zkušební událost.",
		"msg.webhooks.limit":              "Firma může mít nejvýše {max} webhooků. Nejdřív smažte některý, který už nepotřebuje.",
		"field.webhook.url":               "URL",
		"field.webhook.description":       "Popis",
		"notify.webhook_disabled.title":   "Webhook vypnut: {url}",
		"notify.webhook_disabled.body":    "Doručování na něj 5 dní selhávalo. Opravte příjemce a webhook znovu zapněte.",
	})
}
