package hprof

import (
	"cmp"
	"slices"
	"strings"
)

// Owner is retained memory grouped by what holds it in Spark terms.
type Owner struct {
	Owner    string `json:"owner"`
	Objects  int64  `json:"objects"`  // highest objects of the owner's classes in their dominator chains
	Retained int64  `json:"retained"` // what they retain, each byte counted once
	Note     string `json:"note"`
}

// ownerRule maps classes (exact names, prefixes ending in "." or "$", or
// any subclass of a named class) to an owner.
type ownerRule struct {
	owner    string
	classes  []string
	prefixes []string
	note     string
}

// threadStacks is the owner of objects only local variables hold.
const threadStacks = "thread stacks"

func ownerRules() []ownerRule {
	return []ownerRule{
		{"cached blocks", []string{"org.apache.spark.storage.memory.MemoryStore",
			"org.apache.spark.storage.memory.DeserializedMemoryEntry", "org.apache.spark.storage.memory.SerializedMemoryEntry"}, nil,
			"the block manager's memory store: cached RDD/DataFrame partitions and broadcast pieces (storage memory)"},
		{"broadcast variables", []string{"org.apache.spark.broadcast.TorrentBroadcast"}, nil,
			"broadcast values kept until unpersisted or cleaned; a broadcast join's build side"},
		{"shuffle and sort buffers", []string{"org.apache.spark.util.collection.ExternalSorter",
			"org.apache.spark.util.collection.ExternalAppendOnlyMap", "org.apache.spark.util.collection.PartitionedPairBuffer",
			"org.apache.spark.util.collection.PartitionedAppendOnlyMap", "org.apache.spark.shuffle.sort.ShuffleExternalSorter",
			"org.apache.spark.util.collection.unsafe.sort.UnsafeExternalSorter", "org.apache.spark.unsafe.map.BytesToBytesMap",
			"org.apache.spark.sql.execution.UnsafeExternalRowSorter", "org.apache.spark.memory.TaskMemoryManager"}, nil,
			"execution memory of running tasks: shuffle writers, sorts and aggregation hash maps"},
		{"join build sides", []string{"org.apache.spark.sql.execution.joins.LongHashedRelation",
			"org.apache.spark.sql.execution.joins.UnsafeHashedRelation", "org.apache.spark.sql.execution.joins.LongToUnsafeRowMap",
			"org.apache.spark.sql.execution.joins.EmptyHashedRelation$"}, nil,
			"hash tables of a join's build side: a broadcast hash join's broadcast value on each executor and the driver, or a shuffled hash join's per task"},
		{"accumulators", []string{"org.apache.spark.util.AccumulatorV2"}, nil,
			"accumulators and SQL metrics registered with the driver; grow with jobs on long-running drivers"},
		{"ContextCleaner queues", []string{"org.apache.spark.ContextCleaner"}, nil,
			"weak references to RDDs, shuffles, broadcasts and accumulators waiting for cleanup"},
		{"UI status store", []string{"org.apache.spark.status.AppStatusStore", "org.apache.spark.status.ElementTrackingStore",
			"org.apache.spark.util.kvstore.InMemoryStore"}, nil,
			"jobs, stages and tasks kept for the UI; lower spark.ui.retained* on long-running drivers"},
		{"Py4J", nil, []string{"py4j."},
			"JVM objects PySpark holds through the Py4J gateway"},
		{"Arrow buffers", nil, []string{"org.apache.arrow."},
			"Arrow vectors and allocators (pandas UDFs, toPandas, Arrow-based collect)"},
	}
}

// ownerOf returns the rule index a class belongs to (-1: none), looking at
// its superclasses too.
func ownerOf(s *scanner, rules []ownerRule, classID uint64) int {
	for id, depth := classID, 0; id != 0 && depth < 64; depth++ {
		name := s.className(id)
		for i, r := range rules {
			if slices.Contains(r.classes, name) {
				return i
			}
			for _, p := range r.prefixes {
				if strings.HasPrefix(name, p) {
					return i
				}
			}
		}
		c := s.classes[id]
		if c == nil {
			break
		}
		id = c.superID
	}
	return -1
}

// ownerTally sums, for each owner, the retained size of the highest objects
// of its classes (an object inside another owned object counts for the
// outer one only) as the report meets the reachable nodes in preorder
// (add): a node's dominator is always met before it.
type ownerTally struct {
	g       *graph
	t       *domTree
	rules   int
	byClass []int    // class index -> owner, -1: none
	owned   []uint64 // bitset of preorder numbers counted with an owner or under one
	out     []Owner
}

func newOwnerTally(g *graph, t *domTree) *ownerTally {
	rules := ownerRules()
	o := &ownerTally{g: g, t: t, rules: len(rules), byClass: make([]int, len(g.classes)),
		owned: make([]uint64, len(t.idom)/64+1), out: make([]Owner, len(rules)+1)}
	for i, c := range g.classes {
		o.byClass[i] = -1
		if c.kind == kindInstance {
			o.byClass[i] = ownerOf(g.meta, rules, c.id)
		}
	}
	for i, r := range rules {
		o.out[i] = Owner{Owner: r.owner, Note: r.note}
	}
	o.out[len(rules)] = Owner{Owner: threadStacks, Note: "objects only local variables of running threads hold (Java frame and JNI local roots)"}
	return o
}

// add counts preorder number p, of class index cls.
func (o *ownerTally) add(p, cls uint32) {
	d := o.t.idom[p]
	if o.owned[d/64]&(1<<(d%64)) != 0 {
		o.owned[p/64] |= 1 << (p % 64)
		return
	}
	k := o.byClass[cls]
	if k < 0 && d == 1 {
		switch o.g.rootKind[o.t.vert[p]] {
		case subRootJavaFrame, subRootJNILocal, subRootNativeStack, subRootThreadBlock:
			k = o.rules
		}
	}
	if k < 0 {
		return
	}
	o.owned[p/64] |= 1 << (p % 64)
	o.out[k].Objects++
	o.out[k].Retained += o.t.ret[p]
}

// result is the owners met, largest retained first.
func (o *ownerTally) result() []Owner {
	out := o.out
	var res []Owner
	for _, o := range out {
		if o.Objects > 0 {
			res = append(res, o)
		}
	}
	slices.SortFunc(res, func(a, b Owner) int {
		if c := cmp.Compare(b.Retained, a.Retained); c != 0 {
			return c
		}
		return cmp.Compare(a.Owner, b.Owner)
	})
	return res
}
