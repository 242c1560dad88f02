package model

import (
	"math"
	"slices"
	"unicode/utf16"
)

// Spark keeps some of what its REST API lists in Scala 2.13 hash maps and
// sets (a stage's accumulables, a query's jobs and stages, a stage's tasks
// and executor summaries), and lists them in the collections' iteration
// order, which follows the keys' hashes. The functions here give that
// order for keys given by their Scala hash (key.##), so sparkdx lists and
// breaks ties as Spark 4 does (Spark 3.5's Scala 2.12 collections iterate
// otherwise).

// IntHash is an Int key's Scala hash.
func IntHash(v int) int32 { return int32(v) }

// LongHash is a Long key's Scala hash (Statics.longHash): the value itself
// when it fits an Int, else java.lang.Long.hashCode.
func LongHash(v int64) int32 {
	if int64(int32(v)) == v {
		return int32(v)
	}
	return int32(v ^ int64(uint64(v)>>32))
}

// StringHash is a String key's hash: Java's String.hashCode over its UTF-16
// code units.
func StringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r1, r2 := utf16.EncodeRune(r); r1 != '\uFFFD' || r2 != '\uFFFD' {
			h = 31*h + int32(r1)
			h = 31*h + int32(r2)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// ImmutableOrder is the iteration order of a Scala immutable Map or Set
// built by adding keys with these hashes in this order (no key twice):
// up to four keys (Map1..Map4, Set1..Set4) keep that order, more make a
// HashMap/HashSet (ChampOrder). It returns indexes into hashes.
func ImmutableOrder(hashes []int32) []int {
	if len(hashes) <= 4 {
		out := make([]int, len(hashes))
		for i := range out {
			out[i] = i
		}
		return out
	}
	return ChampOrder(hashes)
}

// ChampOrder is the iteration order of Scala 2.13's immutable HashMap or
// HashSet holding keys with these hashes: a compressed hash-array mapped
// prefix trie over the improved hash, 5 bits a level from the lowest,
// where a node lists its single entries (by their 5 bits) before its
// sub-nodes (likewise), depth first. The trie is canonical, so the order
// depends on the keys alone. It returns indexes into hashes.
func ChampOrder(hashes []int32) []int {
	idx := make([]int, len(hashes))
	improved := make([]uint32, len(hashes))
	for i, h := range hashes {
		idx[i] = i
		improved[i] = uint32(improve(h))
	}
	out := make([]int, 0, len(hashes))
	var walk func(ids []int, shift uint)
	walk = func(ids []int, shift uint) {
		if shift >= 32 { // equal hashes: a collision node, in insertion order
			out = append(out, ids...)
			return
		}
		var groups [32][]int
		for _, i := range ids {
			c := (improved[i] >> shift) & 31
			groups[c] = append(groups[c], i)
		}
		for _, g := range groups {
			if len(g) == 1 {
				out = append(out, g[0])
			}
		}
		for _, g := range groups {
			if len(g) > 1 {
				walk(g, shift+5)
			}
		}
	}
	walk(idx, 0)
	return out
}

// improve is scala.collection.Hashing.improve, which the immutable hash
// collections apply to key.##.
func improve(h int32) int32 {
	h = h + ^(h << 9)
	h ^= int32(uint32(h) >> 14)
	h += h << 4
	return h ^ int32(uint32(h)>>10)
}

// MutableHashMapOrder is the iteration order of keys with these hashes in
// a Scala 2.13 mutable.HashMap (default capacity and load factor) into
// which n distinct keys were put, these among them: table slots in order,
// each slot's keys by improved hash. The table doubles from 16 slots
// before the put that would reach three quarters of it. It returns
// indexes into hashes.
func MutableHashMapOrder(hashes []int32, n int) []int {
	size, threshold := 16, 12
	for put := 0; put < n; put++ {
		if put+1 >= threshold {
			size *= 2
			threshold = size * 3 / 4
		}
	}
	return MutableHashSetOrder(hashes, size)
}

// Reorder returns xs in the order of idx (indexes into xs).
func Reorder[T any](xs []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// Scala's MurmurHash3, which case classes, tuples and sequences hash with.
const (
	productSeed = int32(-889275714) // 0xcafebabe
)

func rotl(x int32, r uint) int32 { return int32(uint32(x)<<r | uint32(x)>>(32-r)) }

func mixLast(h, k int32) int32 {
	k *= -862048943 // 0xcc9e2d51
	k = rotl(k, 15)
	k *= 461845907 // 0x1b873593
	return h ^ k
}

func mix(h, k int32) int32 {
	h = rotl(mixLast(h, k), 13)
	return h*5 + -430675100 // 0xe6546b64
}

func finalizeHash(h int32, n int) int32 { return avalanche(h ^ int32(n)) }

func avalanche(h int32) int32 {
	h ^= int32(uint32(h) >> 16)
	h *= -2048144789 // 0x85ebca6b
	h ^= int32(uint32(h) >> 13)
	h *= -1028477387 // 0xc2b2ae35
	return h ^ int32(uint32(h)>>16)
}

// ProductHash is a case class's (or tuple's) hash: MurmurHash3.productHash
// over its name (productPrefix, "Tuple2" for a pair) and its elements' hashes.
func ProductHash(prefix string, elems ...int32) int32 {
	h := mix(productSeed, StringHash(prefix))
	for _, e := range elems {
		h = mix(h, e)
	}
	return finalizeHash(h, len(elems))
}

// ListHash is a List's hash (MurmurHash3 over its elements' hashes, a
// run in constant steps hashed as a range), as Seq(a, b, ...).hashCode.
func ListHash(elems ...int32) int32 {
	seed := StringHash("Seq")
	h := seed
	state, diff, prev, first := 0, int32(0), int32(0), int32(0)
	for _, e := range elems {
		h = mix(h, e)
		switch state {
		case 0:
			first, state = e, 1
		case 1:
			diff, state = e-prev, 2
		case 2:
			if diff != e-prev || diff == 0 {
				state = 3
			}
		}
		prev = e
	}
	if state == 2 { // MurmurHash3.rangeHash(first, diff, last, seed)
		return avalanche(mix(mix(mix(seed, first), diff), prev))
	}
	return finalizeHash(h, len(elems))
}

// ArraySeqHash is an immutable.ArraySeq's hash (an array's toSeq): as
// ListHash, but an indexed sequence hashes a constant-step run otherwise.
func ArraySeqHash(elems ...int32) int32 {
	h := StringHash("Seq")
	switch len(elems) {
	case 0:
		return finalizeHash(h, 0)
	case 1:
		return finalizeHash(mix(h, elems[0]), 1)
	}
	h = mix(h, elems[0])
	h0, prev, diff := h, elems[1], elems[1]-elems[0]
	for i := 2; i < len(elems); i++ {
		h = mix(h, prev)
		if e := elems[i]; diff != e-prev || diff == 0 {
			h = mix(h, e)
			for _, rest := range elems[i+1:] {
				h = mix(h, rest)
			}
			return finalizeHash(h, len(elems))
		}
		prev = elems[i]
	}
	return avalanche(mix(mix(h0, diff), prev))
}

// JSONMapOrder is the order of a map Spark read from a JSON object of its
// event log (JsonProtocol's mapFromJson and its resource maps): the
// object's (key, value) pairs go through a mutable.HashSet and become an
// immutable Map, which keeps the set's order up to four keys (the pairs'
// hashes, values included: valueHashes) and orders more by key
// (ChampOrder). It returns indexes into keys.
func JSONMapOrder(keys []string, valueHashes []int32) []int {
	hashes := make([]int32, len(keys))
	for i, k := range keys {
		hashes[i] = StringHash(k)
	}
	if len(keys) > 4 {
		return ChampOrder(hashes)
	}
	for i := range hashes {
		hashes[i] = ProductHash("Tuple2", hashes[i], valueHashes[i])
	}
	return MutableHashSetOrder(hashes, 16)
}

// DoubleHash is a Double's Scala hash (Statics.doubleHash): that of the
// Int or Long it equals, else Java's.
func DoubleHash(v float64) int32 {
	if i := int32(v); float64(i) == v {
		return i
	}
	if l := int64(v); float64(l) == v && v > -9.3e18 && v < 9.3e18 {
		return LongHash2(l)
	}
	if f := float32(v); float64(f) == v {
		return int32(math.Float32bits(f))
	}
	b := math.Float64bits(v)
	return int32(b ^ b>>32)
}

// LongHash2 is java.lang.Long.hashCode.
func LongHash2(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// MutableHashSetOrder is the iteration order of a Scala 2.13
// mutable.HashSet of table size slots holding elements with these hashes
// (their ##): slots in order, each slot's elements by improved hash.
func MutableHashSetOrder(hashes []int32, slots int) []int {
	mask := int32(slots - 1)
	key := func(i int) (int32, int32) {
		h := hashes[i] ^ int32(uint32(hashes[i])>>16)
		return h & mask, h
	}
	out := make([]int, len(hashes))
	for i := range out {
		out[i] = i
	}
	slices.SortStableFunc(out, func(a, b int) int {
		sa, ha := key(a)
		sb, hb := key(b)
		if sa != sb {
			return int(sa - sb)
		}
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return 0
	})
	return out
}
