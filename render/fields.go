package render

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// maxNameLength is the longest DNS subdomain name Kubernetes accepts.
const maxNameLength = 253

// boundedName joins parts with "-"; a name too long for Kubernetes keeps
// its start and ends with a hash of the whole, so that it stays unique and
// stable.
func boundedName(parts ...string) string {
	name := strings.Join(parts, "-")
	if len(name) <= maxNameLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	head := strings.TrimRight(name[:maxNameLength-11], "-.")
	return head + "-" + hex.EncodeToString(sum[:])[:10]
}

// copyJSON deep-copies a JSON-like value, turning Go integer and float
// kinds into the int64 and float64 that unstructured objects hold. Unlike
// runtime.DeepCopyJSONValue it reports a value it cannot copy instead of
// panicking, since a Bundle may be built by hand.
func copyJSON(v any) (any, error) {
	switch v := v.(type) {
	case nil, string, bool, int64, float64:
		return v, nil
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := copyJSON(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := copyJSON(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = c
		}
		return out, nil
	case json.Number:
		return toJSONValue(v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return toJSONValue(v)
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	}
	return nil, fmt.Errorf("value of type %T is not JSON", v)
}

// copyMap deep-copies an object's map.
func copyMap(m map[string]any) (map[string]any, error) {
	c, err := copyJSON(m)
	if err != nil {
		return nil, err
	}
	out, _ := c.(map[string]any)
	return out, nil
}

// toJSONValue turns a Go value (typed API structs included) into the
// JSON-like values of an unstructured object, dropping nulls.
func toJSONValue(v any) (any, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := utiljson.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	return dropNulls(out), nil
}

func dropNulls(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
				continue
			}
			v[k] = dropNulls(e)
		}
	case []any:
		for i, e := range v {
			v[i] = dropNulls(e)
		}
	}
	return v
}

// childMap returns m[key] as a map, creating it when absent.
func childMap(m map[string]any, key string) (map[string]any, error) {
	switch c := m[key].(type) {
	case map[string]any:
		return c, nil
	case nil:
		n := map[string]any{}
		m[key] = n
		return n, nil
	default:
		return nil, fmt.Errorf("%s is a %T, not a map", key, m[key])
	}
}

// pathMap walks or creates nested maps along keys.
func pathMap(m map[string]any, keys ...string) (map[string]any, error) {
	for i, k := range keys {
		c, err := childMap(m, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", strings.Join(keys[:i+1], "."), err)
		}
		m = c
	}
	return m, nil
}

// mapList returns m[key] as a list of maps; absent is empty.
func mapList(m map[string]any, key string) ([]map[string]any, error) {
	switch l := m[key].(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]map[string]any, len(l))
		for i, e := range l {
			em, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s[%d] is a %T, not a map", key, i, e)
			}
			out[i] = em
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s is a %T, not a list", key, m[key])
	}
}

// setMapList stores a list of maps as m[key].
func setMapList(m map[string]any, key string, l []map[string]any) {
	out := make([]any, len(l))
	for i, e := range l {
		out[i] = e
	}
	m[key] = out
}

// stringMap returns m[key] as a map of strings, creating it when absent.
func stringMap(m map[string]any, key string) (map[string]string, error) {
	out := map[string]string{}
	switch c := m[key].(type) {
	case nil:
	case map[string]any:
		for k, v := range c {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s.%s is a %T, not a string", key, k, v)
			}
			out[k] = s
		}
	default:
		return nil, fmt.Errorf("%s is a %T, not a map", key, m[key])
	}
	return out, nil
}

// setStringMap stores a map of strings as m[key].
func setStringMap(m map[string]any, key string, s map[string]string) {
	out := make(map[string]any, len(s))
	for k, v := range s {
		out[k] = v
	}
	m[key] = out
}
