package validate

import (
	"errors"
	"slices"
	"sync"
)

// The real side's transactional application, for every client: the first
// record begins a transaction, and after transaction.records records (or
// at the end of the application's stream) the transaction ends, commits
// or aborts. A record's outcome is its transaction's: acknowledged when
// the commit succeeds, failed otherwise (as idemsim's producer reports
// it, model/client/txnmanager.go); a record whose delivery fails is
// reported at once, and its transaction will abort. A client supplies
// what differs (txnClient): kgo (real.go), librdkafka (rdkafka.go) and
// sarama (sarama.go).

// txnRec is a record the application hands over, with its outcome's
// callback.
type txnRec struct {
	n    int64
	part int32
	done func(error, string)
}

// txnMember is a record of the open transaction; err is set when its
// delivery failed (guarded by txnApp.mu).
type txnMember struct {
	rec txnRec
	err error
}

// txnClient is one client's transactional API, as the application uses
// it. Each method runs on the application's goroutine.
type txnClient interface {
	// begin starts a transaction (initializing the producer first
	// where the client's API asks for it).
	begin() error
	// send hands m's record to the client; a delivery error that
	// comes later is reported through txnApp.failed.
	send(m *txnMember) error
	// end commits or aborts the open transaction and reports each
	// member still standing (txnApp.ok, fail, aborted, committed).
	end(open []*txnMember)
	// errName names an error for the report ("" when it is the
	// client closing).
	errName(err error) string
}

// txnApp runs a txnClient as the application.
type txnApp struct {
	c    txnClient
	per  int
	ch   chan txnRec
	stop chan struct{}
	once sync.Once
	halt sync.Once
	done chan struct{}
	// mu guards named and the members' err. named: the instance's
	// fatal error was reported once; idemsim counts a fatal state once
	// per instance, not once per record it fails.
	mu    sync.Mutex
	named bool
	// onDelivered, if set, is told of every record the broker
	// acknowledged (before its transaction ends).
	onDelivered func()
}

// newTxnApp starts the application loop of c, transactions of per
// records, for a stream of records records.
func newTxnApp(c txnClient, per, records int, onDelivered func()) *txnApp {
	a := &txnApp{c: c, per: per, ch: make(chan txnRec, 2*records+16), stop: make(chan struct{}), done: make(chan struct{}), onDelivered: onDelivered}
	go a.run()
	return a
}

// produce queues record n for partition part.
func (a *txnApp) produce(n int64, part int32, done func(error, string)) {
	select {
	case a.ch <- txnRec{n, part, done}:
	default:
		done(errors.New("transaction queue full"), "CLIENT(transaction queue full)")
	}
}

// finish ends the stream: the open transaction ends, and the loop.
func (a *txnApp) finish() { a.once.Do(func() { close(a.ch) }) }

// shutdown stops the loop where it is (a crash, or the run's end) and
// waits for it; the client is closed after.
func (a *txnApp) shutdown() {
	a.halt.Do(func() { close(a.stop) })
	<-a.done
}

// stopped is closed when the application is shut down.
func (a *txnApp) stopped() <-chan struct{} { return a.stop }

// name returns err's name the first time a fatal error is named only.
func (a *txnApp) name(err error) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.c.errName(err)
	if n == "" || a.named {
		return ""
	}
	a.named = true
	return n
}

// delivered reports that the broker acknowledged one of the records.
func (a *txnApp) delivered() {
	if a.onDelivered != nil {
		a.onDelivered()
	}
}

// failed reports m's delivery error.
func (a *txnApp) failed(m *txnMember, err error) {
	a.mu.Lock()
	m.err = err
	a.mu.Unlock()
	m.rec.done(err, a.name(err))
}

// ok returns the members whose delivery has not failed.
func (a *txnApp) ok(ms []*txnMember) []*txnMember {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(ms), func(m *txnMember) bool { return m.err != nil })
}

// fail fails the members still standing with err.
func (a *txnApp) fail(ms []*txnMember, err error) {
	for _, m := range a.ok(ms) {
		m.rec.done(err, a.name(err))
	}
}

// aborted reports the members still standing as aborted (no error name:
// the abort's cause was named where it happened).
func (a *txnApp) aborted(ms []*txnMember) {
	for _, m := range a.ok(ms) {
		m.rec.done(errors.New("transaction aborted"), "")
	}
}

// committed reports the members still standing acknowledged.
func (a *txnApp) committed(ms []*txnMember) {
	for _, m := range a.ok(ms) {
		m.rec.done(nil, "")
	}
}

// run is the application's transaction loop.
func (a *txnApp) run() {
	defer close(a.done)
	var open []*txnMember
	for {
		var rec txnRec
		var ok bool
		select {
		case <-a.stop:
			return
		case rec, ok = <-a.ch:
		}
		if !ok {
			if len(open) > 0 {
				a.c.end(open)
			}
			return
		}
		if len(open) == 0 {
			if err := a.c.begin(); err != nil {
				rec.done(err, a.name(err))
				continue
			}
		}
		m := &txnMember{rec: rec}
		open = append(open, m)
		if err := a.c.send(m); err != nil {
			a.failed(m, err)
		}
		if len(open) >= a.per {
			a.c.end(open)
			open = nil
		}
	}
}
