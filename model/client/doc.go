// Package client is the Kafka producer: one [Producer] per application
// instance, a pure state machine that the world calls with the
// application's sends, the network's responses and disconnects, and its
// timers, and that answers with effects ([model.Out]).
//
// It follows the Java client's KafkaProducer and the classes behind it:
// the RecordAccumulator (batching, the per-partition deques, in-flight
// ordering), the Sender (draining, produce requests, completeBatch and
// canRetry, request and delivery timeouts; sender.go), and the
// TransactionManager (producer ids and epochs, sequence numbers and their
// KIP-360 epoch bumps, transactions; txnmanager.go), with the
// ProducerMetadata refresh (metadata.go). The client policy ([ClientPolicy])
// switches the decisions where librdkafka and franz-go differ from the
// Java client.
//
// The producer talks to its destinations by index: broker index 0.. (a
// partition leader), [model.DestCoordinator] or [model.DestGroupCoordinator].
package client
