package htmlpage

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxItems is the number of items (messages, marks, bands and calls)
// above which a page aggregates ([Aggregate]). docs/html.md measures a
// 10,000-event run's page, which stays below it.
const MaxItems = 60_000

// Aggregate collapses r's application calls when r has more than max
// items: each run of consecutive calls of one class between the same
// application and producer instance becomes one call ("send a0:0..a0:49,
// 50 records": records collapsed by the batch they were sent in), and
// the record paths point to it. Messages, marks and bands are all kept.
// It sets r.Aggregated to the note the page shows, and does nothing to a
// run already aggregated or within max.
func Aggregate(r *Run, max int) {
	if r.Items() <= max || r.Aggregated != "" || len(r.Calls) == 0 {
		return
	}
	before := len(r.Calls)
	newIndex := make([]int32, len(r.Calls))
	var out []Call
	count := 0
	first, last := "", ""
	flush := func() {
		if count > 1 {
			c := &out[len(out)-1]
			verb, _, _ := strings.Cut(c.Text, " ")
			c.Text = verb + " " + first + ".." + last + " (" + strconv.Itoa(count) + " records)"
		}
	}
	for i, c := range r.Calls {
		id := callRecord(c.Text)
		if n := len(out); n > 0 && c.Class != CallTxn && out[n-1].Class == c.Class && out[n-1].From == c.From && out[n-1].To == c.To {
			count++
			last = id
			newIndex[i] = int32(n - 1)
			continue
		}
		flush()
		out = append(out, c)
		newIndex[i] = int32(len(out) - 1)
		count, first, last = 1, id, id
	}
	flush()
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
	r.Aggregated = fmt.Sprintf("This run has more than %d items, so the page aggregates: its %d application calls (sends, acknowledgements, failures) are collapsed into %d, one per run of consecutive calls of one kind between an application and its producer instance (records collapsed by the batch they went in). Every message, mark and fault band is drawn; the trace panel holds every line.",
		max, before, len(out))
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
