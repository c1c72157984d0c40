// Package simtest is idemsim's interaction harness: scripts that drive the
// real World one step at a time, as etcd raft's rafttest does. It is a thin
// front end over the World's scripted mode ([world.Script]): the real
// producers, brokers and coordinator run, wired by the World's own code,
// but every message waits in a list of messages in flight until the script
// delivers, drops or loses it, and time moves only when the script
// advances it. The harness parses commands and maps names; what happened
// is the World's observation stream, printed as trace lines without their
// time, and "check" is the World's checker (check.Suite).
//
// Scripts in testdata/*.txt are run with github.com/cockroachdb/datadriven
// by TestInteraction; re-record their expected output with
//
//	go test ./internal/simtest -run TestInteraction -update
//
// (-update sets datadriven's -rewrite, which works too) and review the
// diff. Each command is documented with an example in [Env.Handle].
package simtest
