package params

import (
	"fmt"
	"strconv"
	"strings"
)

// Kafka version profiles (the profile level of docs/parameters.md):
// kafka.version picks the protocol and the defaults of one Kafka release
// on both sides; broker.version and client.version set one side apart
// (an upgrade that runs older clients against newer brokers, or the
// reverse). A profile fills only the parameters nobody set: a scenario's
// default, a preset, a scenario file, a -bug and -set all override it.

// KafkaVersions are the releases the model covers, oldest first: each
// label's behaviour is that release's (docs/versions.md). Later releases
// (4.2 and on) are refused until their changes are modelled.
var KafkaVersions = []string{"3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9", "4.0", "4.1"}

// LatestKafkaVersion is the newest release the model covers.
var LatestKafkaVersion = KafkaVersions[len(KafkaVersions)-1]

// DefaultKafkaVersion is kafka.version's default.
const DefaultKafkaVersion = "4.1"

// sameVersion is broker.version's and client.version's default: the
// version kafka.version names.
const sameVersion = "kafka.version"

// kafkaVersion is a release as major*100+minor (3.6 = 306), for ordering.
type kafkaVersion int

func parseKafkaVersion(s string) kafkaVersion {
	maj, min, _ := strings.Cut(s, ".")
	a, _ := strconv.Atoi(maj)
	b, _ := strconv.Atoi(min)
	return kafkaVersion(a*100 + b)
}

func (v kafkaVersion) atLeast(s string) bool { return v >= parseKafkaVersion(s) }

// versionParams are the parameters that choose the profile.
func versionParams() []Param {
	sides := append([]string{sameVersion}, KafkaVersions...)
	return []Param{
		{Key: "kafka.version", Kind: Enum, Default: DefaultKafkaVersion, Values: KafkaVersions, Doc: "Kafka release of brokers and clients: picks the protocol and the version-dependent defaults (profile level, docs/parameters.md)"},
		{Key: "broker.version", Kind: Enum, Default: sameVersion, Values: sides, Doc: "Kafka release of the brokers and the coordinators, when it differs from kafka.version"},
		{Key: "client.version", Kind: Enum, Default: sameVersion, Values: sides, Doc: "Kafka release of the Java client, when it differs from kafka.version"},
		{Key: "transaction.version", Kind: Enum, Default: "2", Values: []string{"0", "1", "2"}, Doc: "the cluster's finalized transaction.version feature: 0 and 1 run the classic transaction protocol, 2 runs KIP-890 part 2 (an epoch bump per transaction, partitions added by the leader) with clients from 4.0; the profile sets 0 before broker 4.0 and 2 from 4.0 (clusters formatted by 4.0)"},
	}
}

// Versions are the resolved Kafka versions of a run.
type Versions struct {
	// Kafka is kafka.version; Broker and Client are broker.version and
	// client.version as set ("kafka.version": the same as Kafka; see
	// [Versions.BrokerVersion], [Versions.ClientVersion]).
	Kafka, Broker, Client string
	// TransactionVersion is transaction.version, the cluster's feature
	// level, 0..2.
	TransactionVersion int
}

// BrokerVersion is the brokers' release.
func (v Versions) BrokerVersion() string {
	if v.Broker == sameVersion || v.Broker == "" {
		return v.Kafka
	}
	return v.Broker
}

// ClientVersion is the clients' release.
func (v Versions) ClientVersion() string {
	if v.Client == sameVersion || v.Client == "" {
		return v.Kafka
	}
	return v.Client
}

// ClientTransactionVersion is the transaction protocol the client runs:
// 2 when the cluster finalized transaction.version 2 and the client is
// 4.0 or later (a 4.0+ producer decides it at each beginTransaction;
// older clients never send EndTxn v5; KIP-890 part 2), else 1.
func (v Versions) ClientTransactionVersion() int {
	if v.TransactionVersion >= 2 && parseKafkaVersion(v.ClientVersion()).atLeast("4.0") {
		return 2
	}
	return 1
}

// String names the Kafka versions as reports print them: "kafka=4.1
// transaction.version=2", or "broker=4.1 client=3.9
// transaction.version=2" when the sides differ. [Config.VersionLabel]
// adds the client release of a non-Java client policy.
func (v Versions) String() string {
	s := "kafka=" + v.Kafka
	if b, c := v.BrokerVersion(), v.ClientVersion(); b != v.Kafka || c != v.Kafka {
		s = "broker=" + b + " client=" + c
	}
	return s + " transaction.version=" + strconv.Itoa(v.TransactionVersion)
}

// resolveSide returns a side's version, kafka.version for "kafka.version".
func resolveSide(v *Values, key string) string {
	if s := v.Get(key); s != sameVersion {
		return s
	}
	return v.Get("kafka.version")
}

// profileValues are the version-dependent defaults for a broker and a
// client release, each with the side it follows.
func profileValues(broker, client string) []struct {
	KV
	side string
} {
	b, c := parseKafkaVersion(broker), parseKafkaVersion(client)
	tv := "0"
	if b.atLeast("4.0") {
		tv = "2" // KIP-890 part 2: clusters formatted by 4.0 finalize transaction.version 2
	}
	elr := "0"
	if b.atLeast("4.1") {
		elr = "1"
	}
	linger := "0"
	if c.atLeast("4.0") {
		linger = "5" // KIP-1030: linger.ms default 5 from 4.0
	}
	type kv = struct {
		KV
		side string
	}
	return []kv{
		// KIP-890 part 1 verification: broker 3.6+ (reverted before
		// 3.5.0; KIP-890).
		{KV{"transaction.partition.verification.enable", strconv.FormatBool(b.atLeast("3.6"))}, "broker"},
		{KV{"transaction.version", tv}, "broker"},
		// KIP-966: clusters formatted by 4.1 finalize
		// eligible.leader.replicas.version 1.
		{KV{"eligible.leader.replicas.version", elr}, "broker"},
		{KV{"linger.ms", linger}, "client"},
	}
}

// applyProfile sets, at the profile level, the version-dependent defaults
// of the run's broker.version and client.version on every parameter
// still at its own default. It runs after the other levels, because the
// versions themselves may come from any level; a value set at the
// scenario level or above is left alone, as the order of precedence says.
func applyProfile(v *Values) error {
	broker, client := resolveSide(v, "broker.version"), resolveSide(v, "client.version")
	for _, p := range profileValues(broker, client) {
		if v.Param(p.Key) == nil || v.src[p.Key].Level > LevelProfile {
			continue
		}
		ver := broker
		if p.side == "client" {
			ver = client
		}
		if err := v.SetFrom(Source{Level: LevelProfile, Profile: p.side + " " + ver}, p.Key, p.Value); err != nil {
			return err
		}
	}
	if v.Get("transaction.version") == "2" && !parseKafkaVersion(broker).atLeast("4.0") {
		return fmt.Errorf("transaction.version=2 needs broker.version 4.0 or later (broker.version is %s; Kafka 3.x has no transaction version 2)", broker)
	}
	return nil
}

// BrokerVersionNumber returns broker.version as major*100+minor (4.1 is
// 401), the form the model's version gates compare.
func (c *Config) BrokerVersionNumber() int {
	return int(parseKafkaVersion(c.Versions.BrokerVersion()))
}

// ClientVersionNumber returns client.version as major*100+minor (3.7 is
// 307), the form the model's clients' version gates compare.
func (c *Config) ClientVersionNumber() int {
	return int(parseKafkaVersion(c.Versions.ClientVersion()))
}

// VersionLabel names the run's versions as reports print them
// ([Versions.String]), followed by the client release the client policy
// models when it is not the Java client's ("kafka=4.1
// transaction.version=2 librdkafka=2.2.0").
func (c *Config) VersionLabel() string {
	s := c.Versions.String()
	if r := c.Producer.Policy.Release(); r != "" {
		s += " " + r
	}
	return s
}
