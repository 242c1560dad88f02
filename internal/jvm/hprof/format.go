package hprof

// HPROF record and type codes (the format of the JDK's heap dumper,
// src/hotspot/share/services/heapDumper.cpp).

// Top-level record tags.
const (
	tagUTF8            = 0x01
	tagLoadClass       = 0x02
	tagHeapDump        = 0x0C
	tagHeapDumpSegment = 0x1C
	tagHeapDumpEnd     = 0x2C
)

// Heap dump sub-record tags.
const (
	subRootUnknown     = 0xFF
	subRootJNIGlobal   = 0x01
	subRootJNILocal    = 0x02
	subRootJavaFrame   = 0x03
	subRootNativeStack = 0x04
	subRootStickyClass = 0x05
	subRootThreadBlock = 0x06
	subRootMonitorUsed = 0x07
	subRootThreadObj   = 0x08
	subClassDump       = 0x20
	subInstanceDump    = 0x21
	subObjArrayDump    = 0x22
	subPrimArrayDump   = 0x23
	subHeapDumpInfo    = 0xFE
)

// HPROF basic types.
const (
	typeObject  = 2
	typeBoolean = 4
	typeChar    = 5
	typeFloat   = 6
	typeDouble  = 7
	typeByte    = 8
	typeShort   = 9
	typeInt     = 10
	typeLong    = 11
)

// typeSize is the size of a value of type t in the dump (0: not a type).
func typeSize(t byte, idSize int) int {
	switch t {
	case typeObject:
		return idSize
	case typeBoolean, typeByte:
		return 1
	case typeChar, typeShort:
		return 2
	case typeFloat, typeInt:
		return 4
	case typeDouble, typeLong:
		return 8
	}
	return 0
}

// primArrayName is the JVM's name of the array class of primitive type t
// ("" if t is not a primitive type).
func primArrayName(t uint64) string {
	switch t {
	case typeBoolean:
		return "[Z"
	case typeChar:
		return "[C"
	case typeFloat:
		return "[F"
	case typeDouble:
		return "[D"
	case typeByte:
		return "[B"
	case typeShort:
		return "[S"
	case typeInt:
		return "[I"
	case typeLong:
		return "[J"
	}
	return ""
}
