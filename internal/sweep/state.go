package sweep

import (
	"encoding/json"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemsim/idemsim/scenarios"
	"github.com/idemsim/idemsim/scenarios/world"
)

// Wide is an unsigned 128-bit sum, for sums of squares and products that
// can outgrow 64 bits. It is written to JSON as a decimal string.
type Wide struct{ hi, lo uint64 }

// addProd adds a·b.
func (w *Wide) addProd(a, b uint64) {
	hi, lo := bits.Mul64(a, b)
	var c uint64
	w.lo, c = bits.Add64(w.lo, lo, 0)
	w.hi, _ = bits.Add64(w.hi, hi, c)
}

func (w *Wide) add(o Wide) {
	var c uint64
	w.lo, c = bits.Add64(w.lo, o.lo, 0)
	w.hi, _ = bits.Add64(w.hi, o.hi, c)
}

// Big returns the sum as a big.Int.
func (w Wide) Big() *big.Int {
	b := new(big.Int).SetUint64(w.hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(w.lo))
}

// MarshalJSON writes the sum as a decimal string.
func (w Wide) MarshalJSON() ([]byte, error) { return json.Marshal(w.Big().String()) }

// UnmarshalJSON reads a decimal string.
func (w *Wide) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 || n.BitLen() > 128 {
		return fmt.Errorf("sweep: bad 128-bit sum %q", s)
	}
	w.lo = new(big.Int).And(n, new(big.Int).SetUint64(^uint64(0))).Uint64()
	w.hi = new(big.Int).Rsh(n, 64).Uint64()
	return nil
}

// Moments are the per-run sums of one count x: Σx and Σx².
type Moments struct {
	Sum   int64 `json:"sum"`
	SumSq Wide  `json:"sum_sq"`
}

func (m *Moments) add(x int64) {
	if x < 0 {
		panic(fmt.Sprintf("sweep: negative count %d", x))
	}
	m.Sum += x
	m.SumSq.addProd(uint64(x), uint64(x))
}

func (m *Moments) merge(o Moments) {
	m.Sum += o.Sum
	m.SumSq.add(o.SumSq)
}

// Ratio holds the per-run sums for a ratio estimator Σx/Σy clustered by
// run: Σx, Σy, Σx², Σy², Σxy.
type Ratio struct {
	X  Moments `json:"num"`
	Y  Moments `json:"den"`
	XY Wide    `json:"sum_xy"`
}

func (r *Ratio) add(x, y int64) {
	if x < 0 || y < 0 {
		panic(fmt.Sprintf("sweep: negative count %d/%d", x, y))
	}
	r.X.add(x)
	r.Y.add(y)
	r.XY.addProd(uint64(x), uint64(y))
}

func (r *Ratio) merge(o Ratio) {
	r.X.merge(o.X)
	r.Y.merge(o.Y)
	r.XY.add(o.XY)
}

// Hist is a log-linear histogram of durations in nanoseconds: exact below
// 256ns, then 128 buckets per power of two (relative width under 0.8%).
type Hist struct{ counts []int64 }

const subBits = 7 // 128 sub-buckets per power of two

func bucketOf(ns int64) int {
	if ns < 0 {
		ns = 0
	}
	v := uint64(ns)
	if v < 2<<subBits {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1
	return shift<<subBits + int(v>>uint(shift))
}

// bucketRange returns bucket i's lowest value and width.
func bucketRange(i int) (low, width uint64) {
	if i < 2<<subBits {
		return uint64(i), 1
	}
	shift := i>>subBits - 1
	m := uint64(i - shift<<subBits)
	return m << uint(shift), 1 << uint(shift)
}

func (h *Hist) add(d time.Duration) {
	i := bucketOf(int64(d))
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i]++
}

func (h *Hist) merge(o Hist) {
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]int64, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
}

// Total returns the number of values counted.
func (h *Hist) Total() int64 {
	var n int64
	for _, c := range h.counts {
		n += c
	}
	return n
}

// MarshalJSON writes the non-empty buckets as one compact string,
// "index:count index:count ...", ascending.
func (h Hist) MarshalJSON() ([]byte, error) {
	var b []byte
	for i, c := range h.counts {
		if c != 0 {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, ':')
			b = strconv.AppendInt(b, c, 10)
		}
	}
	return json.Marshal(string(b))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *Hist) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	h.counts = nil
	for _, f := range strings.Fields(s) {
		a, c, ok := strings.Cut(f, ":")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.ParseInt(c, 10, 64)
		if !ok || err1 != nil || err2 != nil || i < 0 || i > 1<<16 || n < 0 {
			return fmt.Errorf("sweep: bad histogram bucket %q", f)
		}
		if i >= len(h.counts) {
			h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
		}
		h.counts[i] += n
	}
	return nil
}

// Acc is the exact, mergeable state of one (point, mode): every field is
// an integer sum, so adding runs in any order, or adding two Accs, gives
// the same value.
type Acc struct {
	Runs int64 `json:"runs"`
	// Versions are the Kafka versions the runs modelled
	// ([scenarios.Result.Versions]; one point's runs share them).
	Versions string `json:"versions,omitempty"`
	// AnyViolation counts runs with at least one violation; Violations
	// counts runs per violated invariant.
	AnyViolation int64            `json:"any_violation"`
	Violations   map[string]int64 `json:"violations"`
	Duplicate    Ratio            `json:"duplicate"`  // duplicates / sent
	Reorder      Ratio            `json:"reorder"`    // reordered / sent
	LostAcked    Ratio            `json:"lost_acked"` // lost_acked / acked
	Fencing      Ratio            `json:"fencing"`    // zombie_rejected / zombie_attempts
	ZombieWrites Moments          `json:"zombie_writes"`
	// OffsetStall are the per-run moments of offset_fetch_stall_ms (a
	// group member's longest stall on UNSTABLE_OFFSET_COMMIT, ms); nil
	// while every run's is 0.
	OffsetStall *Moments `json:"offset_fetch_stall_ms,omitempty"`
	ClientBumps int64    `json:"client_epoch_bumps"`
	CoordBumps  int64    `json:"coordinator_epoch_bumps"`
	// Errors are per-run moments of each Kafka error's count.
	Errors map[string]*Moments `json:"errors"`
	// Latency is the send-to-ack histogram in nanoseconds.
	Latency Hist `json:"latency_ns"`
	// Failing holds, per invariant, the K smallest failing seeds, sorted.
	Failing map[string][]uint64 `json:"failing"`
	// TraceSum is the sum, modulo 2^64, of the runs' trace hashes: equal
	// runs give equal sums, in any order or shard split.
	TraceSum Hex64 `json:"trace_hash_sum"`
}

// Hex64 is a sum of trace hashes, written to JSON tagged with the trace
// hash scheme as the hashes are ("v2:" and 16 hex digits; JSON numbers
// lose digits above 2^53). A sum of another scheme's hashes (an untagged
// one, from an older version) is refused when read back, so shards of
// different schemes never merge.
type Hex64 uint64

// MarshalJSON writes the scheme tag and 16 lowercase hex digits.
func (h Hex64) MarshalJSON() ([]byte, error) {
	return json.Marshal(world.FormatTraceHash(uint64(h)))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (h *Hex64) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := world.ParseTraceHash(s)
	if err != nil {
		return fmt.Errorf("sweep: trace_hash_sum: %v", err)
	}
	*h = Hex64(v)
	return nil
}

func newAcc() *Acc {
	return &Acc{Violations: map[string]int64{}, Errors: map[string]*Moments{}, Failing: map[string][]uint64{}}
}

// add counts one run; k bounds the failing seeds kept per invariant.
func (a *Acc) add(r *scenarios.Result, k int) {
	a.Runs++
	if a.Versions == "" {
		a.Versions = r.Versions
	}
	var seen []string
	for _, v := range r.Violations {
		if !slices.Contains(seen, v.Invariant) {
			seen = append(seen, v.Invariant)
		}
	}
	if len(seen) > 0 {
		a.AnyViolation++
	}
	for _, inv := range seen {
		a.Violations[inv]++
		a.Failing[inv] = keepSmallest(a.Failing[inv], []uint64{r.Seed}, k)
	}
	a.Duplicate.add(r.Duplicates, r.Sent)
	a.Reorder.add(r.Reordered, r.Sent)
	a.LostAcked.add(r.LostAcked, r.Acked)
	a.Fencing.add(r.ZombieRejected, r.ZombieAttempts)
	a.ZombieWrites.add(r.ZombieWrite)
	if r.OffsetFetchStallMs > 0 {
		if a.OffsetStall == nil {
			a.OffsetStall = &Moments{}
		}
		a.OffsetStall.add(r.OffsetFetchStallMs)
	}
	a.ClientBumps += r.ClientEpochBumps
	a.CoordBumps += r.CoordinatorEpochBumps
	for name, n := range r.Errors {
		if n == 0 {
			continue
		}
		m := a.Errors[name]
		if m == nil {
			m = &Moments{}
			a.Errors[name] = m
		}
		m.add(n)
	}
	for _, d := range r.Latencies {
		a.Latency.add(d)
	}
	h, err := world.ParseTraceHash(r.TraceHash)
	if err != nil {
		panic("sweep: " + err.Error()) // a run's own hash always parses
	}
	a.TraceSum += Hex64(h)
}

// merge adds o into a.
func (a *Acc) merge(o *Acc, k int) {
	a.Runs += o.Runs
	if a.Versions == "" {
		a.Versions = o.Versions
	}
	a.AnyViolation += o.AnyViolation
	for inv, n := range o.Violations {
		a.Violations[inv] += n
	}
	a.Duplicate.merge(o.Duplicate)
	a.Reorder.merge(o.Reorder)
	a.LostAcked.merge(o.LostAcked)
	a.Fencing.merge(o.Fencing)
	a.ZombieWrites.merge(o.ZombieWrites)
	if o.OffsetStall != nil {
		if a.OffsetStall == nil {
			a.OffsetStall = &Moments{}
		}
		a.OffsetStall.merge(*o.OffsetStall)
	}
	a.ClientBumps += o.ClientBumps
	a.CoordBumps += o.CoordBumps
	for name, m := range o.Errors {
		if a.Errors[name] == nil {
			a.Errors[name] = &Moments{}
		}
		a.Errors[name].merge(*m)
	}
	a.Latency.merge(o.Latency)
	a.TraceSum += o.TraceSum
	for inv, seeds := range o.Failing {
		a.Failing[inv] = keepSmallest(a.Failing[inv], seeds, k)
	}
}

// keepSmallest returns the k smallest distinct seeds of a ∪ b, sorted.
func keepSmallest(a, b []uint64, k int) []uint64 {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > k {
		out = out[:k]
	}
	if out == nil {
		out = []uint64{}
	}
	return out
}
