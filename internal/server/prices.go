package server

import (
	"encoding/json"

	"github.com/sparkdx/sparkdx/internal/cost"
	"github.com/sparkdx/sparkdx/internal/tune"
)

// pricedReport puts serve's prices into a stored report's resourceCost
// and tuning savings, as analyze --price-file does; without prices (or
// in a document it cannot read) the stored bytes are served as they are.
// Stored reports stay unpriced: prices are serve's flags and may change
// at its next start.
func (s *Server) pricedReport(b []byte) []byte {
	if !s.cfg.Prices.Set() {
		return b
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(b, &doc) != nil {
		return b
	}
	var c cost.Cost
	if raw, ok := doc["resourceCost"]; !ok || json.Unmarshal(raw, &c) != nil || string(raw) == "null" {
		return b
	}
	c.PriceWith(s.cfg.Prices)
	doc["resourceCost"] = mustJSON(&c)
	var p tune.Plan
	if raw, ok := doc["tuning"]; ok && string(raw) != "null" && json.Unmarshal(raw, &p) == nil {
		p.Price(s.cfg.Prices.For(c.InstanceType))
		doc["tuning"] = mustJSON(&p)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return b
	}
	return out
}

// mustJSON encodes a value that always encodes (plain structs of numbers
// and strings).
func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
