package params

import "testing"

// TestProfileRows: each version-dependent default of the profile level
// (docs/versions.md) takes its older value at the release before the one
// that changed it, and its newer value from that release on, when only
// kafka.version is set.
func TestProfileRows(t *testing.T) {
	for _, row := range []struct {
		key, release, before, with string
	}{
		// KIP-890 part 1: verification on by default from broker 3.6.
		{"transaction.partition.verification.enable", "3.6", "false", "true"},
		// KIP-890 part 2: clusters formatted by 4.0 finalize
		// transaction.version 2.
		{"transaction.version", "4.0", "0", "2"},
		// KIP-1030: linger.ms defaults to 5 from the 4.0 client.
		{"linger.ms", "4.0", "0", "5"},
		// KIP-966: clusters formatted by 4.1 finalize
		// eligible.leader.replicas.version 1.
		{"eligible.leader.replicas.version", "4.1", "0", "1"},
	} {
		prev := KafkaVersions[indexOf(t, row.release)-1]
		for _, c := range []struct{ version, want string }{{prev, row.before}, {row.release, row.with}} {
			v := newValues(Common())
			if err := v.Apply(Overrides{Sets: []KV{{"kafka.version", c.version}}}); err != nil {
				t.Fatal(err)
			}
			if got := v.Get(row.key); got != c.want {
				t.Errorf("kafka.version=%s: %s = %q, want %q", c.version, row.key, got, c.want)
			}
		}
	}
}

func indexOf(t *testing.T, version string) int {
	t.Helper()
	for i, v := range KafkaVersions {
		if v == version {
			return i
		}
	}
	t.Fatalf("%s is not in KafkaVersions", version)
	return -1
}

// TestLaterVersionsRefused: a release after the latest covered one is
// refused with one line that names the latest covered release, on every
// version key (docs/versions.md).
func TestLaterVersionsRefused(t *testing.T) {
	for _, key := range []string{"kafka.version", "broker.version", "client.version"} {
		for _, v := range []string{"4.2", "4.5", "5.0"} {
			vals := newValues(Common())
			err := vals.Apply(Overrides{Sets: []KV{{key, v}}})
			if err == nil {
				t.Errorf("%s=%s accepted", key, v)
				continue
			}
			want := key + `="` + v + `" is not a Kafka release the model covers: 3.0 to ` + LatestKafkaVersion + " (the latest covered; docs/versions.md)"
			if err.Error() != want {
				t.Errorf("%s=%s: %q, want %q", key, v, err, want)
			}
		}
	}
	if LatestKafkaVersion != "4.1" {
		t.Errorf("LatestKafkaVersion %s: docs/versions.md and the README name 4.1", LatestKafkaVersion)
	}
}

// TestProduceV11ByVersion: a client is answered TRANSACTION_ABORTABLE
// (Produce v11, Kafka 3.8) only when both it and the brokers have it: the
// Java client from 3.8 against brokers from 3.8, franz-go against brokers
// from 3.8, librdkafka never.
func TestProduceV11ByVersion(t *testing.T) {
	for _, c := range []struct {
		sets [][2]string
		want bool
	}{
		{nil, true},
		{[][2]string{{"kafka.version", "3.7"}}, false},
		{[][2]string{{"kafka.version", "3.8"}}, true},
		{[][2]string{{"client.version", "3.7"}}, false},
		{[][2]string{{"broker.version", "3.7"}}, false},
		{[][2]string{{"client.policy", "franz-go"}}, true},
		{[][2]string{{"client.policy", "franz-go"}, {"kafka.version", "3.7"}}, false},
		{[][2]string{{"client.policy", "librdkafka"}}, false},
	} {
		v := newValues(Common())
		for _, kv := range c.sets {
			if err := v.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := v.Settle()
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.ProducerConfig().AbortableError; got != c.want {
			t.Errorf("%v: AbortableError %v, want %v", c.sets, got, c.want)
		}
	}
}
