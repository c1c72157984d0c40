package sweep

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int64
		lo, hi float64
	}{
		// Reference values (Wilson score interval, z = 1.959964).
		{0, 20, 0, 0.16112516},
		{10, 20, 0.29929, 0.70071},
		{1, 100, 0.0017674, 0.054486},
		{20, 20, 0.83887484, 1},
	} {
		p := wilson(c.k, c.n)
		if !near(p.Lo, c.lo, 1e-4) || !near(p.Hi, c.hi, 1e-4) {
			t.Errorf("wilson(%d, %d) = [%v, %v], want [%v, %v]", c.k, c.n, p.Lo, p.Hi, c.lo, c.hi)
		}
	}
}

// TestRatioAgainstFloat: the exact-integer ratio and mean intervals agree
// with a direct float computation of the same delta-method formula.
func TestRatioAgainstFloat(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 1))
	var r Ratio
	var m Moments
	var xs, ys []float64
	for range 200 {
		y := int64(10 + rnd.IntN(20))
		x := int64(rnd.IntN(int(y)))
		r.add(x, y)
		m.add(x)
		xs, ys = append(xs, float64(x)), append(ys, float64(y))
	}
	n := int64(len(xs))
	R := stat.Mean(xs, nil) / stat.Mean(ys, nil)
	var ss float64
	for i := range xs {
		d := xs[i] - R*ys[i]
		ss += d * d
	}
	se := math.Sqrt(ss/float64(n-1)/float64(n)) / stat.Mean(ys, nil)
	got := ratio(r, n)
	if !near(*got.Value, R, 1e-12) || !near(*got.Hi-*got.Value, t95(n)*se, 1e-9) {
		t.Errorf("ratio = %v [%v, %v], want %v ± %v", *got.Value, *got.Lo, *got.Hi, R, t95(n)*se)
	}
	mu, sd := stat.MeanStdDev(xs, nil)
	gm := mean(m, n)
	if !near(*gm.Mean, mu, 1e-12) || !near(*gm.Hi-*gm.Mean, t95(n)*sd/math.Sqrt(float64(n)), 1e-9) {
		t.Errorf("mean = %v hi %v, want %v ± %v", *gm.Mean, *gm.Hi, mu, t95(n)*sd/math.Sqrt(float64(n)))
	}
	if e := ratio(Ratio{}, 5); e.Value != nil || e.Lo != nil {
		t.Errorf("0/0 rate = %+v, want nulls", e)
	}
}

// TestHistBuckets: buckets tile the values, their relative width is under
// 1%, and quantiles from the histogram are within a bucket of the exact
// ones.
func TestHistBuckets(t *testing.T) {
	prevLow, prevW := uint64(0), uint64(1)
	for i := 1; i < 5000; i++ {
		low, w := bucketRange(i)
		if low != prevLow+prevW {
			t.Fatalf("bucket %d starts at %d, want %d", i, low, prevLow+prevW)
		}
		if bucketOf(int64(low)) != i || bucketOf(int64(low+w-1)) != i {
			t.Fatalf("bucket %d: bucketOf(%d)=%d bucketOf(%d)=%d", i, low, bucketOf(int64(low)), low+w-1, bucketOf(int64(low+w-1)))
		}
		if low > 256 && float64(w)/float64(low) > 0.008 {
			t.Fatalf("bucket %d is %d wide at %d", i, w, low)
		}
		prevLow, prevW = low, w
	}
	rnd := rand.New(rand.NewPCG(2, 2))
	var h Hist
	var exact []float64
	for range 10000 {
		d := time.Duration(rnd.ExpFloat64() * float64(5*time.Millisecond))
		h.add(d)
		exact = append(exact, float64(d)/1e6)
	}
	slices.Sort(exact)
	l := latency(h)
	for _, c := range []struct {
		p   float64
		got *float64
	}{{0.5, l.P50}, {0.99, l.P99}, {0.999, l.P999}} {
		want := stat.Quantile(c.p, stat.Empirical, exact, nil)
		if !near(*c.got, want, want*0.01) {
			t.Errorf("p%v = %v ms, want %v", c.p, *c.got, want)
		}
	}
	b, _ := json.Marshal(h)
	var back Hist
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b2, _ := json.Marshal(back)
	if string(b) != string(b2) || back.Total() != 10000 {
		t.Error("histogram JSON does not round-trip")
	}
}

func TestWideJSON(t *testing.T) {
	var w Wide
	w.addProd(math.MaxUint64, math.MaxUint64)
	w.addProd(3, 4)
	b, _ := json.Marshal(w)
	if string(b) != `"340282366920938463426481119284349108237"` {
		t.Errorf("wide = %s", b)
	}
	var back Wide
	if err := json.Unmarshal(b, &back); err != nil || back != w {
		t.Errorf("round trip: %v %v", back, err)
	}
	if err := json.Unmarshal([]byte(`"-1"`), &back); err == nil {
		t.Error("negative accepted")
	}
}

func TestParseAxis(t *testing.T) {
	sc := ackloss(t)
	for _, c := range []struct {
		spec string
		want []string
		err  string
	}{
		{"net.response_loss=0:0.3:0.1", []string{"0", "0.1", "0.2", "0.3"}, ""},
		{"net.response_loss=0:0.3:0.05", []string{"0", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3"}, ""},
		{"max.in.flight.requests.per.connection=1:10:3", []string{"1", "4", "7", "10"}, ""},
		{"net.latency.base=100us:1ms:300us", []string{"100µs", "400µs", "700µs", "1ms"}, ""},
		{"client.policy=java,librdkafka", []string{"java", "librdkafka"}, ""},
		{"client.policy=java:x:y", nil, "takes a list"},
		{"client.policy=x", nil, `client.policy="x" is not allowed`},
		{"records=1,1", nil, "repeats"},
		{"records=1:100000:1", nil, "at most 1000"},
		{"records", nil, "allowed: key=FROM:TO:STEP"},
		{"records=1:2", nil, "allowed: key=FROM:TO:STEP"},
	} {
		a, err := ParseAxis(sc, c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseAxis(%q) = %v, want error with %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(a.Values, c.want) {
			t.Errorf("ParseAxis(%q) = %v, %v; want %v", c.spec, a.Values, err, c.want)
		}
	}
	axes := []Axis{{Key: "a", Values: []string{"1", "2"}}, {Key: "b", Values: []string{"x", "y", "z"}}}
	if got := PointSets(axes, 4); got[0].Value != "2" || got[1].Value != "y" {
		t.Errorf("PointSets(4) = %v", got)
	}
}

// TestNoZeroWidthIntervals: where the runs show no spread (a rate of 0,
// of 1, or the same ratio in every run; a count the same in every run),
// the interval is a bound with width, made over runs, and says so. On
// the main this change started from, each was [v, v].
func TestNoZeroWidthIntervals(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y int64
	}{{"0 in every run", 0, 60}, {"1 in every run", 7, 7}, {"the same ratio in every run", 2, 60}} {
		var r Ratio
		for range 1000 {
			r.add(c.x, c.y)
		}
		got := ratio(r, 1000)
		if got.Lo == nil || got.Hi == nil || !(*got.Hi > *got.Lo) || *got.Value < *got.Lo || *got.Value > *got.Hi || got.Method != "wilson-runs" {
			t.Errorf("%s: %v [%v, %v] %q, want an interval with width around the value, by wilson-runs", c.name, *got.Value, *got.Lo, *got.Hi, got.Method)
		}
	}
	var zero Ratio
	for range 1000 {
		zero.add(0, 60)
	}
	if hi := *ratio(zero, 1000).Hi; !near(hi, 3.8415/(1000+3.8415), 1e-4) {
		t.Errorf("0 in 1000 runs: upper bound %v, want Wilson's z²/(n+z²) = 0.00383", hi)
	}
	var m Moments
	for range 100 {
		m.add(0)
	}
	if gm := mean(m, 100); *gm.Lo != 0 || !near(*gm.Hi, 0.03689, 1e-4) || gm.Method != "poisson" {
		t.Errorf("a count of 0 in 100 runs: [%v, %v] %q, want [0, 3.689/100] by poisson", *gm.Lo, *gm.Hi, gm.Method)
	}
	var three Moments
	for range 100 {
		three.add(3)
	}
	if gm := mean(three, 100); !(*gm.Lo < 3 && *gm.Hi > 3) {
		t.Errorf("a count of 3 in each of 100 runs: [%v, %v], want width around 3", *gm.Lo, *gm.Hi)
	}
}
