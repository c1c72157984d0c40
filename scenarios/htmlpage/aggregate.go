package htmlpage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemsim/idemsim/sim"
)

// MaxItems is the number of items (messages, marks, bands and calls)
// above which a page aggregates ([Aggregate]). docs/html.md measures a
// 10,000-event run's page, which stays below it.
const MaxItems = 60_000

// AggregateBuckets is how many slices of the run's time Aggregate
// collapses calls into: about one per pixel of a wide window at the
// fitted view.
const AggregateBuckets = 2000

// Aggregate collapses r's application calls when r has more than max
// items: the calls of one kind (sends, acknowledgements, failures)
// between the same application and producer instance within one
// 1/[AggregateBuckets] of the run's time become one call ("send
// a0:0..a0:49 (50 records)": records collapsed by the batches they went
// in, and the batches by time), and the record paths point to it.
// Messages, marks, bands and transaction outcomes are all kept. It sets
// r.Aggregated to the note the page shows, and does nothing to a run
// already aggregated or within max.
func Aggregate(r *Run, max int) {
	if r.Items() <= max || r.Aggregated != "" || len(r.Calls) == 0 {
		return
	}
	type key struct {
		from, to int32
		class    uint8
		bucket   int64
	}
	span := int64(r.End)/AggregateBuckets + 1
	before := len(r.Calls)
	newIndex := make([]int32, len(r.Calls))
	at := map[key]int32{}
	var out []Call
	var count []int
	var first, last []string
	for i, c := range r.Calls {
		k := key{c.From, c.To, c.Class, int64(c.At) / span}
		if j, ok := at[k]; ok && c.Class != CallTxn {
			count[j]++
			last[j] = callRecord(c.Text)
			if c.Line >= 0 {
				out[j].More = append(out[j].More, c.Line)
			}
			newIndex[i] = j
			continue
		}
		j := int32(len(out))
		at[k] = j
		out = append(out, c)
		count = append(count, 1)
		id := callRecord(c.Text)
		first, last = append(first, id), append(last, id)
		newIndex[i] = j
	}
	for j := range out {
		if count[j] > 1 {
			verb, _, _ := strings.Cut(out[j].Text, " ")
			out[j].Text = verb + " " + first[j] + ".." + last[j] + " (" + strconv.Itoa(count[j]) + " records)"
		}
	}
	r.Calls = out
	for i := range r.Records {
		items := r.Records[i].Items[:0]
		for _, it := range r.Records[i].Items {
			if it&3 == RefCall {
				it = ref(RefCall, int(newIndex[it>>2]))
			}
			if n := len(items); n > 0 && items[n-1] == it {
				continue
			}
			items = append(items, it)
		}
		r.Records[i].Items = items
	}
	r.Aggregated = fmt.Sprintf("This run has more than %d items, so the page aggregates: its %d application calls (sends, acknowledgements, failures) are collapsed into %d, one per kind, application and producer instance in each %s of simulated time (1/%d of the run: records collapsed by the batches they went in). Every message, mark and fault band is drawn; the trace panel holds every line.",
		max, before, len(out), sim.Time(span).Duration(), AggregateBuckets)
}

// callRecord returns the record id a call's text names ("send a0:3",
// "ack a0:3", "fail a0:3 ..."), or "".
func callRecord(text string) string {
	f := strings.Fields(text)
	if len(f) < 2 {
		return ""
	}
	return f[1]
}
