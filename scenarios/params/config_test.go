package params

import (
	"reflect"
	"testing"
	"time"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
	"github.com/idemsim/idemsim/model/client"
	simnet "github.com/idemsim/idemsim/net"
)

// TestConfigDefaults: the parameters' own defaults decode to Kafka's
// producer defaults (client.DefaultProducerConfig) and the documented
// broker and network defaults.
func TestConfigDefaults(t *testing.T) {
	ps := Common()
	v := newValues(ps)
	c, err := v.Decode()
	if err != nil {
		t.Fatal(err)
	}
	want := client.DefaultProducerConfig()
	want.Seq = model.SeqSpace{Bits: 31}
	// The default kafka.version, 4.1, runs transaction version 2.
	want.TransactionVersion = 2
	want.ClientVersion = 401
	if got := c.ProducerConfig(); !reflect.DeepEqual(got, want) {
		t.Errorf("producer defaults\n got %+v\nwant %+v", got, want)
	}
	for _, x := range []struct {
		name      string
		got, want any
	}{
		{"acks", c.Producer.Acks, AcksAll},
		{"partitions", c.Partitions, 1},
		{"broker.window", c.Broker.Window, 5},
		{"broker.restart.rebuild", c.Broker.RestartRebuild, RebuildLog},
		{"producer.id.expiration.ms", c.Broker.ProducerIDExpiration, 24 * time.Hour},
		{"epoch.bits", c.Coordinator.EpochBits, 16},
		{"net.mode", c.Net.Mode, simnet.TCP},
		{"net.latency", c.Net.Latency.Dist, simnet.LogNormal},
		{"net.latency.base", c.Net.Latency.Base, 500 * time.Microsecond},
		{"net.link.latency", len(c.Net.Links), 0},
		{"fault.kinds", c.Fault.Kinds, faults.GenAll},
		{"fault.max_duration", c.Fault.MaxDuration, 10 * time.Second},
	} {
		if !reflect.DeepEqual(x.got, x.want) {
			t.Errorf("%s: %v, want %v", x.name, x.got, x.want)
		}
	}
}
