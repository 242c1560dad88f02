package replay

import "github.com/sparkdx/sparkdx/internal/model"

// Spark reads the small maps of its event log (an executor's log URLs,
// attributes and resources, the driver's logs, a resource profile's
// requests) through a hash set of (key, value) pairs, so the History
// Server lists up to four of them in an order their values decide
// (model.JSONMapOrder); the model keeps them in that order.

func sparkPairsOrder(ps [][2]string) [][2]string {
	if len(ps) < 2 {
		return ps
	}
	keys, vals := make([]string, len(ps)), make([]int32, len(ps))
	for i, p := range ps {
		keys[i], vals[i] = p[0], model.StringHash(p[1])
	}
	return model.Reorder(ps, model.JSONMapOrder(keys, vals))
}

func sparkResourcesOrder(rs []model.ResourceInfo) []model.ResourceInfo {
	if len(rs) < 2 {
		return rs
	}
	keys, vals := make([]string, len(rs)), make([]int32, len(rs))
	for i, r := range rs {
		addrs := make([]int32, len(r.Addresses))
		for j, a := range r.Addresses {
			addrs[j] = model.StringHash(a)
		}
		// ResourceInformation hashes Seq(name, addresses.toSeq).
		keys[i], vals[i] = r.Name, model.ListHash(model.StringHash(r.Name), model.ArraySeqHash(addrs...))
	}
	return model.Reorder(rs, model.JSONMapOrder(keys, vals))
}

// sparkProfileOrder orders a resource profile's requests; each request
// hashes Seq of its fields.
func sparkProfileOrder(p *model.ResourceProfile) {
	if ex := p.ExecutorResources; len(ex) > 1 {
		keys, vals := make([]string, len(ex)), make([]int32, len(ex))
		for i, r := range ex {
			keys[i] = r.Name
			vals[i] = model.ListHash(model.StringHash(r.Name), model.LongHash(r.Amount),
				model.StringHash(r.DiscoveryScript), model.StringHash(r.Vendor))
		}
		p.ExecutorResources = model.Reorder(ex, model.JSONMapOrder(keys, vals))
	}
	if ts := p.TaskResources; len(ts) > 1 {
		keys, vals := make([]string, len(ts)), make([]int32, len(ts))
		for i, r := range ts {
			keys[i], vals[i] = r.Name, model.ListHash(model.StringHash(r.Name), model.DoubleHash(r.Amount))
		}
		p.TaskResources = model.Reorder(ts, model.JSONMapOrder(keys, vals))
	}
}
