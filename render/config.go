package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	corev1 "k8s.io/api/core/v1"
)

// configKeys are the fields of a Subscription's spec.config.
var configKeys = []string{"affinity", "annotations", "env", "envFrom", "nodeSelector", "resources", "selector", "tolerations", "volumeMounts", "volumes"}

// subscriptionConfig is a Subscription's spec.config, checked against the
// typed API and held as the JSON-like values injected into deployments.
type subscriptionConfig struct {
	env, envFrom, volumes, volumeMounts, tolerations []map[string]any
	// resources, nodeSelector and affinity are nil when not configured.
	resources, nodeSelector, affinity map[string]any
	annotations                       map[string]string
}

// parseConfig checks a Subscription config. Unknown fields, at any depth,
// are errors: a typo must not silently configure nothing.
func parseConfig(cfg map[string]any) (*subscriptionConfig, []string, error) {
	for k := range cfg {
		if !slices.Contains(configKeys, k) {
			return nil, nil, fmt.Errorf("config: unknown field %q (known: %s)", k, strings.Join(configKeys, ", "))
		}
	}
	j, err := json.Marshal(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	var typed operatorsv1alpha1.SubscriptionConfig
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&typed); err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	if err := checkConfigNames(&typed); err != nil {
		return nil, nil, fmt.Errorf("config: %w", err)
	}
	var warnings []string
	if typed.Selector != nil {
		warnings = append(warnings, "config.selector is ignored, as OLM ignores it")
	}
	c := &subscriptionConfig{annotations: typed.Annotations}
	for _, f := range []struct {
		dst *[]map[string]any
		src any
	}{{&c.env, typed.Env}, {&c.envFrom, typed.EnvFrom}, {&c.volumes, typed.Volumes}, {&c.volumeMounts, typed.VolumeMounts}, {&c.tolerations, typed.Tolerations}} {
		if *f.dst, err = jsonMaps(f.src); err != nil {
			return nil, nil, fmt.Errorf("config: %w", err)
		}
	}
	for _, f := range []struct {
		dst *map[string]any
		set bool
		src any
	}{{&c.resources, typed.Resources != nil, typed.Resources}, {&c.nodeSelector, typed.NodeSelector != nil, typed.NodeSelector}, {&c.affinity, typed.Affinity != nil, typed.Affinity}} {
		if !f.set {
			continue
		}
		if *f.dst, err = jsonMap(f.src); err != nil {
			return nil, nil, fmt.Errorf("config: %w", err)
		}
	}
	return c, warnings, nil
}

// checkConfigNames requires the names OLM merges by.
func checkConfigNames(c *operatorsv1alpha1.SubscriptionConfig) error {
	for i, e := range c.Env {
		if e.Name == "" {
			return fmt.Errorf("env[%d]: name is required", i)
		}
	}
	for i, v := range c.Volumes {
		if v.Name == "" {
			return fmt.Errorf("volumes[%d]: name is required", i)
		}
	}
	for i, m := range c.VolumeMounts {
		if m.Name == "" || m.MountPath == "" {
			return fmt.Errorf("volumeMounts[%d]: name and mountPath are required", i)
		}
	}
	return nil
}

func jsonMaps(v any) ([]map[string]any, error) {
	j, err := toJSONValue(v)
	if err != nil || j == nil {
		return nil, err
	}
	l, _ := j.([]any)
	out := make([]map[string]any, len(l))
	for i, e := range l {
		out[i], _ = e.(map[string]any)
	}
	return out, nil
}

func jsonMap(v any) (map[string]any, error) {
	j, err := toJSONValue(v)
	if err != nil {
		return nil, err
	}
	m, _ := j.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// apply injects the config into a deployment the way OLM's
// DeploymentInitializer does: env and volume mounts by name into every
// container (overriding, else appending), volumes by name, envFrom and
// tolerations appended unless present, resources and nodeSelector
// replaced, affinity overridden part by part, annotations added to the
// deployment and its pod template without overriding any.
func (c *subscriptionConfig) apply(dep map[string]any) error {
	pod, err := pathMap(dep, "spec", "template", "spec")
	if err != nil {
		return err
	}
	containers, err := mapList(pod, "containers")
	if err != nil {
		return err
	}
	for _, ctr := range containers {
		if err := mergeByName(ctr, "env", c.env); err != nil {
			return err
		}
		if err := appendAbsent(ctr, "envFrom", c.envFrom); err != nil {
			return err
		}
		if err := mergeByName(ctr, "volumeMounts", c.volumeMounts); err != nil {
			return err
		}
		if c.resources != nil {
			ctr["resources"] = cloneMap(c.resources)
		}
	}
	if err := mergeByName(pod, "volumes", c.volumes); err != nil {
		return err
	}
	if err := appendAbsent(pod, "tolerations", c.tolerations); err != nil {
		return err
	}
	if c.nodeSelector != nil {
		pod["nodeSelector"] = cloneMap(c.nodeSelector)
	}
	overrideAffinity(pod, c.affinity)
	return c.addAnnotations(dep)
}

func (c *subscriptionConfig) addAnnotations(dep map[string]any) error {
	if len(c.annotations) == 0 {
		return nil
	}
	for _, keys := range [][]string{{"metadata"}, {"spec", "template", "metadata"}} {
		meta, err := pathMap(dep, keys...)
		if err != nil {
			return err
		}
		have, err := stringMap(meta, "annotations")
		if err != nil {
			return err
		}
		for k, v := range c.annotations {
			if _, ok := have[k]; !ok {
				have[k] = v
			}
		}
		setStringMap(meta, "annotations", have)
	}
	return nil
}

// mergeByName sets each entry of add in m[key], replacing the entry of the
// same name in place, else appending.
func mergeByName(m map[string]any, key string, add []map[string]any) error {
	if len(add) == 0 {
		return nil
	}
	have, err := mapList(m, key)
	if err != nil {
		return err
	}
	for _, a := range add {
		i := slices.IndexFunc(have, func(h map[string]any) bool { return h["name"] == a["name"] })
		if i >= 0 {
			have[i] = cloneMap(a)
		} else {
			have = append(have, cloneMap(a))
		}
	}
	setMapList(m, key, have)
	return nil
}

// appendAbsent appends each entry of add to m[key] unless an equal entry
// is there.
func appendAbsent(m map[string]any, key string, add []map[string]any) error {
	if len(add) == 0 {
		return nil
	}
	have, err := mapList(m, key)
	if err != nil {
		return err
	}
	for _, a := range add {
		if !slices.ContainsFunc(have, func(h map[string]any) bool { return jsonEqual(h, a) }) {
			have = append(have, cloneMap(a))
		}
	}
	setMapList(m, key, have)
	return nil
}

// overrideAffinity replaces the pod's affinity part by part: a configured
// part replaces the pod's, an empty one removes it, and an empty affinity
// removes them all.
func overrideAffinity(pod, cfg map[string]any) {
	if cfg == nil {
		return
	}
	have, _ := pod["affinity"].(map[string]any)
	if len(cfg) == 0 || len(have) == 0 {
		delete(pod, "affinity")
		if len(cfg) > 0 {
			pod["affinity"] = cloneMap(cfg)
		}
		return
	}
	for _, part := range []string{"nodeAffinity", "podAffinity", "podAntiAffinity"} {
		v, ok := cfg[part].(map[string]any)
		switch {
		case !ok:
		case len(v) == 0:
			delete(have, part)
		default:
			have[part] = cloneMap(v)
		}
	}
	if len(have) == 0 {
		delete(pod, "affinity")
	}
}

// cloneMap copies a map made by toJSONValue, which holds only JSON values.
func cloneMap(m map[string]any) map[string]any {
	c, _ := copyMap(m)
	return c
}

// jsonEqual compares JSON-like values, reading numbers by value.
func jsonEqual(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// envVar is the JSON form of an environment variable.
func envVar(name, value string) map[string]any {
	m, _ := jsonMap(corev1.EnvVar{Name: name, Value: value})
	return m
}
