package htmlpage

import (
	"encoding/json"
	"strconv"
	"strings"
)

// appendData appends the run's data as the page's script reads it: one
// JSON object of arrays (docs/html.md lists its fields). Items are
// arrays rather than objects to keep a large run's page small; times are
// integer nanoseconds of simulated time.
func appendData(b []byte, r *Run, m *Meta) []byte {
	b = append(b, `{"lanes":[`...)
	for i, l := range r.Lanes {
		b = comma(b, i)
		b = append(b, '[')
		b = appendStr(b, l.Name)
		b = append(b, ',')
		b = appendStr(b, l.Kind)
		b = append(b, ']')
	}
	b = append(b, `],"end":`...)
	b = strconv.AppendInt(b, int64(r.End), 10)
	b = append(b, `,"planEnd":`...)
	b = strconv.AppendInt(b, int64(r.PlanEnd), 10)
	b = append(b, `,"aggregated":`...)
	b = appendStr(b, r.Aggregated)
	b = append(b, `,"kinds":`...)
	b = appendStrs(b, r.Kinds)
	b = append(b, `,"lines":`...)
	b = appendStrs(b, r.Lines)
	// msgs: [sent, arrive, from, to, kind, line, arriveLine, flags, text, fate]
	b = append(b, `,"msgs":[`...)
	for i := range r.Msgs {
		x := &r.Msgs[i]
		b = comma(b, i)
		b = appendInts(b, int64(x.Sent), int64(x.Arrive), int64(x.From), int64(x.To), int64(x.Kind), int64(x.Line), int64(x.ArriveLine), int64(x.Flags))
		b = append(b, ',')
		b = appendStr(b, msgText(r, x))
		b = append(b, ',')
		b = appendStr(b, x.Fate)
		b = append(b, ']')
	}
	// marks: [at, lane, class, line, text]
	b = append(b, `],"marks":[`...)
	for i := range r.Marks {
		x := &r.Marks[i]
		b = comma(b, i)
		b = appendInts(b, int64(x.At), int64(x.Lane), int64(x.Class), int64(x.Line))
		b = append(b, ',')
		text := x.Text
		if x.Line >= 0 && int(x.Line) < len(r.Lines) && strings.HasSuffix(lineText(r.Lines[x.Line]), text) {
			text = "" // the script shows the line's text, which holds it
		}
		b = appendStr(b, text)
		b = append(b, ']')
	}
	// bands: [from, until, lane, line, text]
	b = append(b, `],"bands":[`...)
	for i := range r.Bands {
		x := &r.Bands[i]
		b = comma(b, i)
		b = appendInts(b, int64(x.From), int64(x.Until), int64(x.Lane), int64(x.Line))
		b = append(b, ',')
		b = appendStr(b, x.Text)
		b = append(b, ']')
	}
	// calls: [at, from, to, class, line, text(, [more lines])]
	b = append(b, `],"calls":[`...)
	for i := range r.Calls {
		x := &r.Calls[i]
		b = comma(b, i)
		b = appendInts(b, int64(x.At), int64(x.From), int64(x.To), int64(x.Class), int64(x.Line))
		b = append(b, ',')
		b = appendStr(b, x.Text)
		if len(x.More) > 0 {
			b = append(b, ",["...)
			for j, l := range x.More {
				b = comma(b, j)
				b = strconv.AppendInt(b, int64(l), 10)
			}
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	// records: [id, [ref...]]
	b = append(b, `],"records":[`...)
	for i := range r.Records {
		x := &r.Records[i]
		b = comma(b, i)
		b = append(b, '[')
		b = appendStr(b, x.ID.String())
		b = append(b, ",["...)
		for j, it := range x.Items {
			b = comma(b, j)
			b = strconv.AppendInt(b, int64(it), 10)
		}
		b = append(b, "]]"...)
	}
	// violations: [invariant, atNs, detail, record]
	b = append(b, `],"violations":[`...)
	for i, v := range r.Violations {
		b = comma(b, i)
		b = append(b, '[')
		b = appendStr(b, v.Invariant)
		b = append(b, ',')
		b = strconv.AppendInt(b, v.AtNs, 10)
		b = append(b, ',')
		b = appendStr(b, v.Detail)
		b = append(b, ',')
		rec := ""
		if id, ok := violationRecord(v.Detail); ok {
			rec = id.String()
		}
		b = appendStr(b, rec)
		b = append(b, ']')
	}
	b = append(b, `],"reproduce":`...)
	b = appendStr(b, m.Reproduce)
	return append(b, '}')
}

// msgText is a message's text as the data holds it: "" when the script
// can read it from the message's send line (sentText), which is most of
// a large page's bytes saved.
func msgText(r *Run, m *Msg) string {
	if m.Line >= 0 && int(m.Line) < len(r.Lines) && sentText(r.Lines[m.Line]) == m.Text {
		return ""
	}
	return m.Text
}

// sentText reads a message's description from its send line, as the
// page's script does: between " send " and the last " -> ".
func sentText(line string) string {
	a := strings.Index(line, " send ")
	z := strings.LastIndex(line, " -> ")
	if a < 0 || z < a+6 {
		return ""
	}
	return line[a+6 : z]
}

func comma(b []byte, i int) []byte {
	if i > 0 {
		b = append(b, ',')
	}
	return b
}

// appendInts appends "[v0,v1,..." (the array left open).
func appendInts(b []byte, vs ...int64) []byte {
	b = append(b, '[')
	for i, v := range vs {
		b = comma(b, i)
		b = strconv.AppendInt(b, v, 10)
	}
	return b
}

func appendStrs(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		b = comma(b, i)
		b = appendStr(b, s)
	}
	return append(b, ']')
}

// appendStr appends s as a JSON string, with <, > and & escaped so that
// the data cannot close the script element that holds it.
func appendStr(b []byte, s string) []byte {
	q, err := json.Marshal(s)
	if err != nil { // a string always marshals
		panic(err)
	}
	return append(b, q...)
}
