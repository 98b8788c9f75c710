package i18n

// The rating service's messages: its configuration (office staff,
// "msg.rating.") and reading a rating ("msg.rating_read.", which drivers
// meet too).
func init() {
	Add(EN, map[string]string{
		"msg.rating.metrics_required":      "The metrics field is required and must list at least one metric.",
		"msg.rating.metric_name_required":  "The metric name is required.",
		"msg.rating.metric_name":           "The metric name must be one of: {allowed}.",
		"msg.rating.metric_repeated":       "The metric {metric} is already listed at metrics.{index}.",
		"msg.rating.weight_range":          "The weight must be a number between 0 and 100.",
		"msg.rating.weight_places":         "The weight may have at most 2 decimals.",
		"msg.rating.is_enabled":            "The enabled field must be true or false.",
		"msg.rating.weights_sum":           "The weights of all six metrics, enabled or not, must sum to 100; they sum to {total}.",
		"msg.rating.min_enabled":           "At least {min} metrics must be enabled; {enabled} would be.",
		"msg.rating.thresholds_object":     "The thresholds must be an object.",
		"msg.rating.threshold_unknown":     "{metric} has no threshold \"{key}\"; its threshold is {threshold}.",
		"msg.rating.threshold_range":       "The {key} threshold must be a number greater than 0 and at most {max}.",
		"msg.rating.threshold_range_whole": "The {key} threshold must be a whole number greater than 0 and at most {max}.",
		"msg.rating.threshold_whole":       "The {key} threshold must be a whole number.",
		"msg.rating.threshold_places":      "The {key} threshold may have at most 2 decimals.",
		"msg.rating.sort_by":               "The sort_by must be one of: total_score, rank_percentile, internal_number, last_name.",
		"msg.rating.sort_order":            "The sort_order must be asc or desc.",

		"msg.rating_read.period_month":  "The period must be a month in the form YYYY-MM.",
		"msg.rating_read.period_future": "The period may not be a future month.",
		"msg.rating_read.from_after_to": "The start date must not be after the end date.",
		"msg.rating_read.none":          "No rating for {period}: past months are rated by the monthly job or by a recalculation.",
		"msg.api.param_month":           "The {name} parameter must be a month (YYYY-MM).",
	})
	Add(CS, map[string]string{
		"msg.rating.metrics_required":      "Zadejte alespoň jednu metriku.",
		"msg.rating.metric_name_required":  "Zadejte název metriky.",
		"msg.rating.metric_name":           "Název metriky musí být jeden z: {allowed}.",
		"msg.rating.metric_repeated":       "Metrika {metric} už je uvedena na pozici metrics.{index}.",
		"msg.rating.weight_range":          "Váha musí být číslo od 0 do 100.",
		"msg.rating.weight_places":         "Váha může mít nejvýše 2 desetinná místa.",
		"msg.rating.is_enabled":            "Zapnutí metriky musí být ano, nebo ne.",
		"msg.rating.weights_sum":           "Váhy všech šesti metrik, zapnutých i vypnutých, musí dát dohromady 100; teď dávají {total}.",
		"msg.rating.min_enabled":           "Zapnuté musí být alespoň {min} metriky; bylo by jich {enabled}.",
		"msg.rating.thresholds_object":     "Prahy musí být objekt.",
		"msg.rating.threshold_unknown":     "Metrika {metric} nemá práh „{key}“; její práh je {threshold}.",
		"msg.rating.threshold_range":       "Práh {key} musí být číslo větší než 0 a nejvýše {max}.",
		"msg.rating.threshold_range_whole": "Práh {key} musí být celé číslo větší než 0 a nejvýše {max}.",
		"msg.rating.threshold_whole":       "Práh {key} musí být celé číslo.",
		"msg.rating.threshold_places":      "Práh {key} může mít nejvýše 2 desetinná místa.",
		"msg.rating.sort_by":               "Řazení musí být jedno z: total_score, rank_percentile, internal_number, last_name.",
		"msg.rating.sort_order":            "Směr řazení musí být asc, nebo desc.",

		"msg.rating_read.period_month":  "Období musí být měsíc ve tvaru RRRR-MM.",
		"msg.rating_read.period_future": "Období nemůže být budoucí měsíc.",
		"msg.rating_read.from_after_to": "Začátek nesmí být po konci.",
		"msg.rating_read.none":          "Za {period} hodnocení není: minulé měsíce hodnotí měsíční úloha nebo přepočet.",
		"msg.api.param_month":           "Parametr {name} musí být měsíc (RRRR-MM).",
	})
}
