package config

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// priceSpecs are the keys of a [prices.MODEL] table: US dollars per million tokens.
var priceSpecs = []spec{
	{key: "input", typ: typeMoney, def: 0.0, example: "3.00", rangeHint: priceHint},
	{key: "output", typ: typeMoney, def: 0.0, example: "15.00", rangeHint: priceHint},
	{key: "cache_read", typ: typeMoney, def: 0.0, example: "0.30", rangeHint: priceHint},
	{key: "cache_write", typ: typeMoney, def: 0.0, example: "3.75", rangeHint: priceHint},
}

const priceHint = "a price in US dollars per million tokens, like 3.00; 0 for tokens that cost nothing (a local model)"

// ModelPrice is a [prices.MODEL] table of the user's config: what an API agent's model
// costs, in US dollars per million tokens, over the built-in table's price (a key left
// out is 0). Only the user's file may set one: a repository's lower price would make
// the user's budgets count less than is spent.
type ModelPrice struct {
	Input, Output, CacheRead, CacheWrite float64
	Origin                               Origin // the table's header line
}

// repoPricesHint is the way out of a repository's [prices] table.
const repoPricesHint = "a repository's config may not set prices: they decide what your budgets count. Set [prices.MODEL] in your own config (~/.config/git-ralph/config.toml) and remove it here"

// mergePrices is the user's [prices.MODEL] tables.
func mergePrices(user *layer) map[string]ModelPrice {
	prices := map[string]ModelPrice{}
	for name, t := range user.prices {
		ts := tiers{defaults(priceSpecs), t}
		p := ModelPrice{Input: get[float64](ts, "input").V, Output: get[float64](ts, "output").V,
			CacheRead: get[float64](ts, "cache_read").V, CacheWrite: get[float64](ts, "cache_write").V,
			Origin: user.priceAt[name]}
		prices[name] = p
	}
	return prices
}

// priceEntries are the user's prices for `git ralph config`, by model.
func priceEntries(prices map[string]ModelPrice) []Entry {
	var e []Entry
	for _, name := range slices.Sorted(maps.Keys(prices)) {
		p := prices[name]
		e = append(e, Entry{"prices." + fieldName([]string{name}), describePrice(p), p.Origin})
	}
	return e
}

// describePrice writes a price for people: "$3.00/M in, $15.00/M out, …".
func describePrice(p ModelPrice) string {
	per := func(f float64) string {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") || len(s)-strings.IndexByte(s, '.') <= 3 {
			s = strconv.FormatFloat(f, 'f', 2, 64)
		}
		return "$" + s + "/M"
	}
	return per(p.Input) + " in, " + per(p.Output) + " out, " + per(p.CacheRead) + " cache read, " + per(p.CacheWrite) + " cache write"
}
