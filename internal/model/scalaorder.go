package model

import (
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
	mask := int32(size - 1)
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

// Reorder returns xs in the order of idx (indexes into xs).
func Reorder[T any](xs []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}
