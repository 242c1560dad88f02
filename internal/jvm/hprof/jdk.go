package hprof

// HotSpot adds fields of its own to some JDK classes ("injected fields",
// javaClasses.hpp ALL_INJECTED_FIELDS). They take room in every instance but
// the heap dumper never writes them, so the layout must add them back.
// Fields a JDK version lacks only make the size estimate of that one class
// wrong, so the table is the union over JDK 17–25 where the class exists only
// there, and per-version where it matters (see injectedFields).
type injected struct {
	name string
	typ  byte // HPROF basic type
}

func injectedFields(class string) []injected {
	switch class {
	case "java.lang.String":
		return []injected{{"flags", typeByte}}
	case "java.lang.Class":
		return []injected{
			{"klass", typeLong}, {"array_klass", typeLong}, {"oop_size", typeInt},
			{"static_oop_field_count", typeInt}, {"protection_domain", typeObject},
			{"signers", typeObject}, {"source_file", typeObject},
		}
	case "java.lang.ClassLoader":
		return []injected{{"loader_data", typeLong}}
	case "java.lang.invoke.ResolvedMethodName":
		return []injected{{"vmtarget", typeLong}, {"vmholder", typeObject}}
	case "java.lang.invoke.MemberName":
		return []injected{{"vmindex", typeLong}}
	case "java.lang.invoke.MethodHandleNatives$CallSiteContext":
		return []injected{{"vmdependencies", typeLong}, {"last_cleanup", typeLong}}
	case "java.lang.StackFrameInfo":
		return []injected{{"version", typeShort}}
	case "java.lang.Module":
		return []injected{{"module_entry", typeLong}}
	case "java.lang.InternalError":
		return []injected{{"during_unsafe_access", typeBoolean}}
	}
	return nil
}

// contendedSpec says which fields of a JDK class carry @Contended (the
// annotation is honoured for JDK classes and is not in the dump). group ""
// means the class itself is annotated.
type contendedSpec struct {
	class  bool
	groups map[string]string // field name -> group name ("" = own group)
}

func contendedFields(class string) *contendedSpec {
	switch class {
	case "java.lang.Thread":
		return &contendedSpec{groups: map[string]string{
			"threadLocalRandomSeed": "tlr", "threadLocalRandomProbe": "tlr", "threadLocalRandomSecondarySeed": "tlr",
		}}
	case "java.util.concurrent.ConcurrentHashMap$CounterCell",
		"java.util.concurrent.atomic.Striped64$Cell",
		"java.util.concurrent.Exchanger$Node":
		return &contendedSpec{class: true}
	}
	return nil
}
