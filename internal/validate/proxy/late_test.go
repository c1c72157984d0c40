package proxy

import (
	"bufio"
	"encoding/binary"
	stdnet "net"
	"sync"
	"testing"
	"time"
)

// arrival is one request frame as the fake broker read it.
type arrival struct {
	key  int16
	corr int32
	at   time.Time
}

// fakeBroker reads request frames, records them, and answers each with
// an empty response frame carrying its correlation id.
type fakeBroker struct {
	ln  stdnet.Listener
	mu  sync.Mutex
	got []arrival
	wg  sync.WaitGroup
}

func newFakeBroker(t *testing.T) *fakeBroker {
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeBroker{ln: ln}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					b, err := readFrame(r)
					if err != nil {
						return
					}
					key, _, corr, _, err := requestHeader(b)
					if err != nil {
						return
					}
					f.mu.Lock()
					f.got = append(f.got, arrival{key, corr, time.Now()})
					f.mu.Unlock()
					resp := make([]byte, 8)
					binary.BigEndian.PutUint32(resp, 4)
					binary.BigEndian.PutUint32(resp[4:], uint32(corr))
					if _, err := c.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); f.wg.Wait() })
	return f
}

// arrived returns the frame with correlation id corr, waiting up to 3s.
func (f *fakeBroker) arrived(t *testing.T, corr int32) arrival {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		f.mu.Lock()
		for _, a := range f.got {
			if a.corr == corr {
				f.mu.Unlock()
				return a
			}
		}
		f.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("request %d never reached the broker", corr)
	return arrival{}
}

// requestFrame is a non-flexible request (header v1) with an empty body.
func requestFrame(key, ver int16, corr int32) []byte {
	b := make([]byte, 4+2+2+4+2)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	binary.BigEndian.PutUint16(b[4:], uint16(key))
	binary.BigEndian.PutUint16(b[6:], uint16(ver))
	binary.BigEndian.PutUint32(b[8:], uint32(corr))
	binary.BigEndian.PutUint16(b[12:], 0xffff) // null client id
	return b
}

// TestProxyLate: an armed late rule holds the n-th request of its type,
// the requests behind it on the connection wait behind it, the others
// pass at once, and a held request reaches the broker even though its
// client closed the connection meanwhile (faults.Late).
func TestProxyLate(t *testing.T) {
	f := newFakeBroker(t)
	p, err := New(Config{Client: "p1", Server: "b1", Coordinator: "c1", Upstream: f.ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const hold = 400 * time.Millisecond
	p.ArmLate(26, true, 2, hold) // the second EndTxn
	p.ArmLate(26, true, 3, hold) // and the third

	c, err := stdnet.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	start := time.Now()
	for _, fr := range [][]byte{requestFrame(26, 1, 1), requestFrame(26, 1, 2), requestFrame(3, 0, 3)} {
		if _, err := c.Write(fr); err != nil {
			t.Fatal(err)
		}
	}
	first, second, behind := f.arrived(t, 1), f.arrived(t, 2), f.arrived(t, 3)
	if d := first.at.Sub(start); d >= hold/2 {
		t.Errorf("the first EndTxn, not armed, took %v", d)
	}
	if d := second.at.Sub(start); d < hold {
		t.Errorf("the second EndTxn reached the broker after %v, want at least %v", d, hold)
	}
	if behind.at.Before(second.at) {
		t.Errorf("the request behind the held one overtook it (%v before %v)", behind.at, second.at)
	}
	for range 3 {
		if _, err := readFrame(r); err != nil {
			t.Fatalf("reading the answers: %v", err)
		}
	}
	c.Close()

	// The third EndTxn goes on a new connection that its client closes
	// at once: the broker still reads it, after the hold.
	c2, err := stdnet.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	if _, err := c2.Write(requestFrame(26, 1, 4)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	c2.Close()
	if d := f.arrived(t, 4).at.Sub(start); d < hold {
		t.Errorf("the third EndTxn reached the broker after %v, want at least %v", d, hold)
	}
	if st := p.Stats(); st.Late != 2 {
		t.Errorf("Stats().Late = %d, want 2", st.Late)
	}
}
