package hprof

// HotSpot adds fields of its own to some JDK classes ("injected fields",
// javaClasses.hpp ALL_INJECTED_FIELDS). They take room in every instance but
// the heap dumper never writes them, so the layout must add them back.
// The table covers JDK 17 and 25 (checked against both by the tests); where
// the injection changed between them, a Java field that changed at the same
// time selects the entry. A JDK with other injections is caught by the
// address-gap check (Histogram.GapCorrections).
type injected struct {
	name string
	typ  byte // HPROF basic type
	// when/unless name a Java field of the class whose presence tells the
	// JDK versions apart (only for classes whose injection changed).
	when, unless string
}

func injectedFields(class string) []injected {
	switch class {
	case "java.lang.String":
		return []injected{{"flags", typeByte, "", ""}}
	case "java.lang.Class":
		return []injected{
			{"klass", typeLong, "", ""}, {"array_klass", typeLong, "", ""}, {"oop_size", typeInt, "", ""},
			{"static_oop_field_count", typeInt, "", ""}, {"protection_domain", typeObject, "", ""},
			{"signers", typeObject, "", ""}, {"source_file", typeObject, "", ""},
		}
	case "java.lang.ClassLoader":
		return []injected{{"loader_data", typeLong, "", ""}}
	case "java.lang.invoke.ResolvedMethodName":
		return []injected{{"vmtarget", typeLong, "", ""}, {"vmholder", typeObject, "", ""}}
	case "java.lang.invoke.MemberName":
		return []injected{{"vmindex", typeLong, "", ""}}
	case "java.lang.invoke.MethodHandleNatives$CallSiteContext": // JDK 17
		return []injected{{"vmdependencies", typeLong, "", ""}, {"last_cleanup", typeLong, "", ""}}
	case "java.lang.invoke.CallSite": // JDK 25: the context moved into CallSite
		return []injected{{"vmdependencies", typeLong, "", "context"}, {"last_cleanup", typeLong, "", "context"}}
	case "java.lang.Thread": // JDK 19+ (Loom: fields in Thread$FieldHolder "holder"), as in JDK 25
		return []injected{
			{"jvmti_thread_state", typeLong, "holder", ""}, {"jvmti_VTMS_transition_disable_count", typeInt, "holder", ""},
			{"jvmti_is_in_VTMS_transition", typeBoolean, "holder", ""}, {"jfr_epoch", typeShort, "holder", ""},
		}
	case "java.lang.StackFrameInfo":
		return []injected{{"version", typeShort, "", ""}}
	case "java.lang.Module":
		return []injected{{"module_entry", typeLong, "", ""}}
	case "java.lang.InternalError":
		return []injected{{"during_unsafe_access", typeBoolean, "", ""}}
	}
	return nil
}

// contendedSpec says which fields of a JDK class carry @Contended (the
// annotation is honoured for JDK classes and is not in the dump). group ""
// means the class itself is annotated.
type contendedSpec struct {
	class  bool
	groups map[string]string // field name -> group name ("" = own group)
	// unless names a field whose presence means a JDK version without the
	// annotation: Loom-era Thread (JDK 19+, with "holder") dropped it.
	unless string
}

func contendedFields(class string) *contendedSpec {
	switch class {
	case "java.lang.Thread":
		return &contendedSpec{unless: "holder", groups: map[string]string{
			"threadLocalRandomSeed": "tlr", "threadLocalRandomProbe": "tlr", "threadLocalRandomSecondarySeed": "tlr",
		}}
	case "java.util.concurrent.ConcurrentHashMap$CounterCell",
		"java.util.concurrent.atomic.Striped64$Cell",
		"java.util.concurrent.Exchanger$Node":
		return &contendedSpec{class: true}
	}
	return nil
}
