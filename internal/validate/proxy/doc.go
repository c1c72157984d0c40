// Package proxy is validate's fault-injecting TCP proxy: it stands
// between one real client instance and one broker, reads the Kafka
// framing, and loses, holds, delays, rejects or cuts messages the way a
// fault plan says (docs/validate.md). It is outside the simulated world:
// it reads the wall clock and runs goroutines.
package proxy
