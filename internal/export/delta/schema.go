package delta

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// structField is one field of a Delta schemaString (Spark's JSON schema).
type structField struct {
	Name     string         `json:"name"`
	Type     any            `json:"type"`
	Nullable bool           `json:"nullable"`
	Metadata map[string]any `json:"metadata"`
}

type structType struct {
	Type   string        `json:"type"`
	Fields []structField `json:"fields"`
}

type arrayType struct {
	Type         string `json:"type"`
	ElementType  any    `json:"elementType"`
	ContainsNull bool   `json:"containsNull"`
}

type mapType struct {
	Type              string `json:"type"`
	KeyType           any    `json:"keyType"`
	ValueType         any    `json:"valueType"`
	ValueContainsNull bool   `json:"valueContainsNull"`
}

// deltaSchema renders the Parquet schema of a row type as a Delta
// schemaString. Only types with one Delta meaning are accepted: timestamps
// must be microseconds adjusted to UTC, as PROTOCOL.md requires.
func deltaSchema(s *parquet.Schema) (string, error) {
	st, err := structOf(s.Fields())
	if err != nil {
		return "", fmt.Errorf("delta: schema %s: %w", s.Name(), err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func structOf(fields []parquet.Field) (structType, error) {
	st := structType{Type: "struct", Fields: []structField{}}
	for _, f := range fields {
		t, err := typeOf(f)
		if err != nil {
			return st, fmt.Errorf("column %s: %w", f.Name(), err)
		}
		st.Fields = append(st.Fields, structField{Name: f.Name(), Type: t, Nullable: f.Optional(), Metadata: map[string]any{}})
	}
	return st, nil
}

func logical(n parquet.Node) format.LogicalTypeValue {
	if lt := n.Type().LogicalType(); lt != nil {
		return lt.Value
	}
	return nil
}

func typeOf(n parquet.Node) (any, error) {
	switch logical(n).(type) {
	case *format.ListType:
		elem := n.Fields()[0].Fields()[0] // repeated group list { element }
		et, err := typeOf(elem)
		if err != nil {
			return nil, err
		}
		return arrayType{Type: "array", ElementType: et, ContainsNull: elem.Optional()}, nil
	case *format.MapType:
		kv := n.Fields()[0].Fields() // repeated group key_value { key, value }
		if kv[1].Optional() {
			// parquet-go v0.32 writes optional map values as nulls (DuckDB
			// reads them back empty), so such columns are refused.
			return nil, fmt.Errorf("optional map values are not written faithfully: drop parquet-value optional")
		}
		kt, err := typeOf(kv[0])
		if err != nil {
			return nil, err
		}
		vt, err := typeOf(kv[1])
		if err != nil {
			return nil, err
		}
		return mapType{Type: "map", KeyType: kt, ValueType: vt, ValueContainsNull: kv[1].Optional()}, nil
	}
	switch {
	case n.Repeated():
		return nil, fmt.Errorf("bare repeated field: tag it with \"list\"")
	case !n.Leaf():
		return structOf(n.Fields())
	}
	return primitiveOf(n)
}

func primitiveOf(n parquet.Node) (string, error) {
	lt := logical(n)
	switch n.Type().Kind() {
	case parquet.Boolean:
		return "boolean", nil
	case parquet.Float:
		return "float", nil
	case parquet.Double:
		return "double", nil
	case parquet.Int32:
		switch lt := lt.(type) {
		case nil:
			return "integer", nil
		case *format.DateType:
			return "date", nil
		case *format.IntType:
			if lt.IsSigned {
				switch lt.BitWidth {
				case 8:
					return "byte", nil
				case 16:
					return "short", nil
				case 32:
					return "integer", nil
				}
			}
		}
	case parquet.Int64:
		switch lt := lt.(type) {
		case nil:
			return "long", nil
		case *format.IntType:
			if lt.IsSigned && lt.BitWidth == 64 {
				return "long", nil
			}
		case *format.TimestampType:
			if _, micros := lt.Unit.Value.(*format.MicroSeconds); !micros || !lt.IsAdjustedToUTC {
				return "", fmt.Errorf("timestamp must be microseconds adjusted to UTC: tag it timestamp(microsecond)")
			}
			return "timestamp", nil
		}
	case parquet.ByteArray:
		switch lt.(type) {
		case nil:
			return "binary", nil
		case *format.StringType:
			return "string", nil
		}
	}
	return "", fmt.Errorf("parquet type %v has no Delta equivalent here", n.Type())
}

// addedColumns compares a table's schemaString with the row type's: nil
// when they have the same columns; the row type's new columns when it only
// adds nullable ones (schema evolution: old files read them as null);
// an error for any other difference.
func addedColumns(table, row string) ([]string, error) {
	type schema struct {
		Fields []map[string]any `json:"fields"`
	}
	var have, want schema
	if err := json.Unmarshal([]byte(table), &have); err != nil {
		return nil, fmt.Errorf("table schemaString: %w", err)
	}
	if err := json.Unmarshal([]byte(row), &want); err != nil {
		return nil, fmt.Errorf("row schemaString: %w", err)
	}
	byName := map[string]map[string]any{}
	for _, f := range want.Fields {
		byName[fmt.Sprint(f["name"])] = f
	}
	seen := map[string]bool{}
	for _, f := range have.Fields {
		name := fmt.Sprint(f["name"])
		w, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("the table has column %s, which the row type lacks (written by a newer sparkdx?)", name)
		}
		if !reflect.DeepEqual(f, w) {
			return nil, fmt.Errorf("column %s differs: table %v, row type %v", name, f, w)
		}
		seen[name] = true
	}
	var added []string
	for _, f := range want.Fields {
		name := fmt.Sprint(f["name"])
		if seen[name] {
			continue
		}
		if f["nullable"] != true {
			return nil, fmt.Errorf("new column %s is not nullable: the table's files cannot have it", name)
		}
		added = append(added, name)
	}
	return added, nil
}
