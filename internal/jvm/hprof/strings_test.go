package hprof

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"
)

// TestDuplicateStringsSameEveryRun: which repeated values get their text
// sampled, and so the top list among equal counts, must not depend on the
// process. A hundred distinct values, each twice and interleaved, let the
// recent-hash table's collisions (1,024 slots for a dump this small) leave
// a few of them unsampled, and the top 20 then lists those (no text
// first) and the first sampled ones: with a hash seeded per run (maphash
// before), reads of one dump listed different values.
func TestDuplicateStringsSameEveryRun(t *testing.T) {
	const distinct = 100
	b := newDump("JAVA PROFILE 1.0.2", 8)
	b.utf8(0x8001, "java/lang/Object")
	b.utf8(0x8002, "java/lang/String")
	b.utf8(0x8005, "[B")
	b.utf8(nameValue, "value")
	b.utf8(nameCoder, "coder")
	b.utf8(nameHash, "hash")
	b.loadClass(1, idObject, 0x8001)
	b.loadClass(2, idString, 0x8002)
	b.loadClass(3, idBArr, 0x8005)
	b.classDump(idObject, 0, nil, nil)
	b.classDump(idString, idObject, nil, []fieldSpec{{nameValue, typeObject}, {nameCoder, typeByte}, {nameHash, typeInt}})
	b.classDump(idBArr, idObject, nil, nil)
	b.flush()
	addr := uint64(0x700000000)
	for range 2 {
		for i := range distinct {
			v := fmt.Sprintf("value-%05d", i)
			arr := addr
			b.primArray(arr, typeByte, []byte(v))
			addr += uint64(alignUp(16+len(v), 8))
			d := make([]byte, 8+1+4)
			binary.BigEndian.PutUint64(d, arr)
			b.instance(addr, idString, d)
			addr += 24
		}
	}
	b.flush()
	dump := b.bytes()

	read := func() StringSummary {
		t.Helper()
		h, err := Read(context.Background(), bytes.NewReader(dump), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return h.Strings
	}
	first := read()
	if first.Distinct != distinct || first.Duplicates != distinct || len(first.Top) == 0 {
		t.Fatalf("got %d distinct, %d duplicates, %d listed; want %d, %d and a top list", first.Distinct, first.Duplicates, len(first.Top), distinct, distinct)
	}
	for range 4 {
		if again := read(); !reflect.DeepEqual(again, first) {
			t.Fatalf("two reads of one dump differ:\n%+v\n%+v", first.Top, again.Top)
		}
	}
}
