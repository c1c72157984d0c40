package params

import (
	"fmt"
	"slices"
	"strings"
)

// Preset is a named set of parameter values applied at level "preset":
// above the scenario's defaults, below a scenario file, -bug and -set
// (docs/parameters.md).
type Preset struct {
	Name string
	Doc  string
	// Keys are the parameters it sets; Value gives each one's value.
	Keys  []string
	Value func(p Param) string
}

// kafkaDefaultKeys are the Kafka client and broker settings whose values
// the scenarios shorten or lengthen to make a failure show within a few
// simulated seconds: timeouts, linger, backoffs, the in-flight limit and
// the coordinator's and broker's check intervals. Workload (records,
// partitions), network and fault parameters are not Kafka settings and
// stay the scenario's.
var kafkaDefaultKeys = []string{
	"acks", "retries", "max.in.flight.requests.per.connection",
	"delivery.timeout.ms", "request.timeout.ms", "linger.ms",
	"retry.backoff.ms", "retry.backoff.max.ms", "reconnect.backoff.ms",
	"transaction.timeout.ms", "transaction.abort.timed.out.transaction.cleanup.interval.ms",
	"producer.id.expiration.ms", "producer.id.expiration.check.interval.ms",
	"transactional.id.expiration.ms", "transaction.remove.expired.transaction.cleanup.interval.ms",
	"log.retention.check.interval.ms", "auto.leader.rebalance.enable",
}

// kafkaValues are Kafka's values of the settings in kafkaDefaultKeys
// whose idemsim default is not Kafka's (each parameter's doc says why).
var kafkaValues = map[string]string{"auto.leader.rebalance.enable": "true"}

var presets = []Preset{{
	Name: "kafka-defaults",
	Doc: "Kafka's own client and broker defaults (Java producer 3.x, broker 4.x) for timeouts, linger, backoffs, " +
		"acks, retries, the in-flight limit and the transaction and producer-id check intervals, instead of the " +
		"scenario's stress values; workload, network and fault parameters stay the scenario's",
	Keys: kafkaDefaultKeys,
	Value: func(p Param) string {
		if v, ok := kafkaValues[p.Key]; ok {
			return v
		}
		return p.Default
	},
}}

// Presets returns the presets, by name.
func Presets() []Preset { return slices.Clone(presets) }

// LookupPreset returns the preset called name.
func LookupPreset(name string) (*Preset, error) {
	var names []string
	for i := range presets {
		if presets[i].Name == name {
			return &presets[i], nil
		}
		names = append(names, presets[i].Name)
	}
	return nil, fmt.Errorf("unknown preset %q%s (known: %s)", name, DidYouMean(name, names), strings.Join(names, ", "))
}

// Sets returns the values the preset gives, in Keys order: Kafka's
// value of each parameter (its own default, unless kafkaValues says
// otherwise), not the scenario's.
func (p *Preset) Sets() []KV {
	var out []KV
	own := map[string]Param{}
	for _, q := range Common() {
		own[q.Key] = q
	}
	for _, k := range p.Keys {
		out = append(out, KV{Key: k, Value: p.Value(own[k])})
	}
	return out
}

// StressValues returns those of a scenario's defaults that set a Kafka setting
// away from Kafka's default, each with Kafka's value: the values to read
// a scenario's rates against ("request.timeout.ms=1000, Kafka 30000").
func StressValues(defaults []KV) []StressValue {
	own := map[string]Param{}
	for _, q := range Common() {
		own[q.Key] = q
	}
	var out []StressValue
	for _, kv := range defaults {
		if !slices.Contains(kafkaDefaultKeys, kv.Key) {
			continue
		}
		if d := own[kv.Key].Default; d != kv.Value {
			out = append(out, StressValue{Key: kv.Key, Value: kv.Value, Kafka: d})
		}
	}
	return out
}

// StressValue is a scenario's value of a Kafka setting and Kafka's
// default.
type StressValue struct{ Key, Value, Kafka string }

// StressNote is the line -describe and a sweep's report print about a
// scenario's parameters, given its defaults.
func StressNote(defaults []KV) string {
	var kv []string
	for _, v := range StressValues(defaults) {
		kv = append(kv, fmt.Sprintf("%s=%s (Kafka: %s)", v.Key, v.Value, v.Kafka))
	}
	note := "The scenario's parameters are stress values, chosen to make its failure show within seconds of simulated time, not production estimates"
	if len(kv) > 0 {
		note += "; its Kafka settings away from Kafka's defaults: " + strings.Join(kv, ", ")
	}
	var faults []string
	for _, d := range defaults {
		if strings.HasPrefix(d.Key, "net.") && strings.HasSuffix(d.Key, "loss") || d.Key == "broker.transient_error" || d.Key == "fault.count" {
			faults = append(faults, d.Key+"="+d.Value)
		}
	}
	if len(faults) > 0 {
		note += "; its fault rates: " + strings.Join(faults, ", ")
	}
	return note + ". Rates measured with them say how the system fails, not how often it fails in production; -preset kafka-defaults runs the scenario with Kafka's own client and broker defaults."
}
