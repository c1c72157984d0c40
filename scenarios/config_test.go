package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemsim/idemsim/scenarios/params"
)

// leaves flattens a Config into its leaf fields, by path, so that two
// configs can be compared field by field.
func leaves(c params.Config) map[string]any {
	out := map[string]any{}
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if v.Kind() == reflect.Struct {
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
			return
		}
		out[path] = v.Interface()
	}
	walk("Config", reflect.ValueOf(c))
	return out
}

// changed returns the leaf fields that differ between a and b.
func changed(a, b params.Config) []string {
	la, lb := leaves(a), leaves(b)
	var out []string
	for k, v := range la {
		if !reflect.DeepEqual(v, lb[k]) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// candidates returns values of p to try, other than its current value.
func candidates(p *params.Param, cur string) []string {
	switch p.Kind {
	case params.Bool:
		b, _ := strconv.ParseBool(cur)
		return []string{strconv.FormatBool(!b)}
	case params.Enum:
		return p.Values
	case params.String:
		switch p.Key {
		case "fault.kinds":
			return []string{"pause", "drop,drift"}
		case "net.link.latency":
			return []string{"p1>b1 constant base=5ms"}
		}
		return []string{"x", "y"}
	case params.Int:
		n, _ := strconv.ParseInt(cur, 10, 64)
		return []string{strconv.FormatInt(n+1, 10), strconv.FormatInt(n-1, 10),
			strconv.FormatInt(p.Min, 10), strconv.FormatInt(p.Max, 10)}
	case params.Float:
		f, _ := strconv.ParseFloat(cur, 64)
		return []string{strconv.FormatFloat(f+0.25, 'g', -1, 64), strconv.FormatFloat(p.MinF, 'g', -1, 64), strconv.FormatFloat(p.MaxF, 'g', -1, 64)}
	case params.Duration:
		d, _ := time.ParseDuration(cur)
		return []string{(d + time.Millisecond).String(), time.Duration(p.Min).String(), time.Duration(p.Max).String()}
	}
	return nil
}

// TestConfigCoversEveryParameter: in every scenario, each parameter has
// its own field of Config, which a new value of the parameter changes,
// and that no other parameter changes. A parameter added to
// commonParams or to a scenario's Extra without a field fails here.
func TestConfigCoversEveryParameter(t *testing.T) {
	used := map[string]bool{}
	for _, sc := range All() {
		t.Run(sc.Name, func(t *testing.T) {
			v := sc.Values()
			base, err := v.Decode()
			if err != nil {
				t.Fatal(err)
			}
			owner := map[string]string{} // leaf field -> parameter
			for _, p := range v.Params() {
				used[p.Key] = true
				var diff []string
				for _, val := range candidates(&p, v.Get(p.Key)) {
					w := sc.Values()
					if w.Set(p.Key, val) != nil {
						continue
					}
					c, err := w.Decode()
					if err != nil {
						t.Fatalf("%s=%s: %v", p.Key, val, err)
					}
					if diff = changed(base, c); len(diff) > 0 {
						break
					}
				}
				if len(diff) == 0 {
					t.Errorf("no value of %s changes params.Config: add a field for it (scenarios/params/config.go)", p.Key)
					continue
				}
				for _, f := range diff {
					if o, ok := owner[f]; ok {
						t.Errorf("%s and %s both set %s", o, p.Key, f)
					}
					owner[f] = p.Key
				}
			}
		})
	}
	for _, key := range params.FieldKeys() {
		if !used[key] {
			t.Errorf("Config field of %s, a parameter no scenario has", key)
		}
	}
}

// TestResolveExposesConfig: Resolve decodes once; the World reaches the
// same Config through its Values.
func TestResolveExposesConfig(t *testing.T) {
	sc, _ := Lookup("zombie")
	res, err := Resolve(Spec{Scenario: sc, Sets: kv("pause.ms", "1500", "net.link.latency", "p1>b1 uniform base=1ms spread=2ms")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Values.Config() != res.Config {
		t.Fatal("Values.Config is not Resolved.Config")
	}
	c := res.Config
	if c.Extra.Pause != 1500*time.Millisecond || c.Extra.PauseAt != 3200*time.Millisecond || c.Extra.TakeoverAfter != 500*time.Millisecond {
		t.Errorf("extra %+v", c.Extra)
	}
	if len(c.Net.Links) != 1 || c.Net.Links[0].Latency.Spread != 2*time.Millisecond {
		t.Errorf("links %+v", c.Net.Links)
	}
	if c.Producer.TransactionalID != "t1" || res.Producer.TransactionalID != "t1" {
		t.Errorf("transactional.id %q, effective %q", c.Producer.TransactionalID, res.Producer.TransactionalID)
	}
	defer func() {
		if recover() == nil {
			t.Error("Config of unresolved values did not panic")
		}
	}()
	sc.Values().Config()
}

// TestStructuredValuesCheckedWhenSet: a value that passes its kind's
// check but does not parse is rejected where it is set, naming the key.
func TestStructuredValuesCheckedWhenSet(t *testing.T) {
	sc, _ := Lookup("zombie") // has its own plan: fault.kinds used to be read only with fault.count > 0
	for _, c := range []struct{ key, val, want string }{
		{"fault.kinds", "pause,bogus", `fault.kinds: unknown kind "bogus"`},
		{"net.link.latency", "p1>b1 bogus", "net.link.latency: link p1>b1: unknown latency distribution"},
	} {
		_, err := Resolve(Spec{Scenario: sc, Sets: kv(c.key, c.val)})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s=%s: %v, want %q", c.key, c.val, err, c.want)
		}
	}
	fs, err := ParseScenarioFile("f.yaml", []byte("name: x\nbase: ackloss\nparams:\n  records: 3\n  fault.kinds: nope\n"))
	if err == nil || err.Error() != fmt.Sprintf("f.yaml:5: fault.kinds: unknown kind %q (allowed: all, or a list of pause, crash, partition, oneway, drop, drift, stall, delete-records, shutdown, elect-preferred, reassign, slow-poll, mute-heartbeat)", "nope") {
		t.Errorf("scenario file: %v %v", fs, err)
	}
}
