package historycheck

import (
	"fmt"
	"strings"
	"testing"
)

// check reads and checks a history given as lines.
func check(t *testing.T, lines ...string) *Report {
	t.Helper()
	ops, err := Read(strings.NewReader(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Check(ops)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// finals returns the two final polls over the given read_committed and
// read_uncommitted records of key 0.
func finals(rc, ru string) []string {
	return []string{
		`{"index":90,"time":9,"process":90,"type":"invoke","f":"poll","final":"read_committed","value":[["poll"]]}`,
		`{"index":91,"time":9,"process":90,"type":"ok","f":"poll","final":"read_committed","value":[["poll",{"0":[` + rc + `]}]]}`,
		`{"index":92,"time":9,"process":91,"type":"invoke","f":"poll","final":"read_uncommitted","value":[["poll"]]}`,
		`{"index":93,"time":9,"process":91,"type":"ok","f":"poll","final":"read_uncommitted","value":[["poll",{"0":[` + ru + `]}]]}`,
	}
}

// send returns a format 1 send operation (no "records": the value names
// its record).
func send(i int, typ, value string) string {
	return fmt.Sprintf(`{"index":%d,"time":%d,"process":%d,"type":%q,"f":"send","value":[["send",0,%s]]}`, i, i, i, typ, value)
}

// write returns a send operation of value, a write of record.
func write(i int, typ, value string, record int64) string {
	return fmt.Sprintf(`{"index":%d,"time":%d,"process":%d,"type":%q,"f":"send","value":[["send",0,%s]],"records":[%d]}`, i, i, i, typ, value, record)
}

func TestClean(t *testing.T) {
	rep := check(t, append([]string{send(0, "ok", "[0,1]"), send(1, "ok", "[1,2]"), send(2, "fail", "3"), send(3, "info", "4")},
		finals("[0,1],[1,2],[2,4]", "[0,1],[1,2],[2,4]")...)...)
	if !rep.Clean() {
		t.Errorf("%+v", *rep)
	}
}

func TestAnomalies(t *testing.T) {
	rep := check(t, append([]string{
		send(0, "ok", "[0,1]"),    // read at 0 and again at 2: a duplicate
		send(1, "ok", "[1,2]"),    // nowhere: lost (and only that, not also unseen)
		send(2, "ok", "[null,5]"), // acknowledged without an offset, read at 3
		send(3, "ok", "[4,6]"),    // read at 5, not at 4: unseen at its offset
		send(4, "fail", "7"),      // its write failed, yet read: an aborted read
		send(5, "info", "3"),
		send(6, "info", "9"),
	}, finals("[0,1],[1,3],[2,1],[3,5],[5,6],[7,7]", "[0,1],[1,3],[2,1],[3,5],[4,9],[5,6],[7,7]")...)...)
	if got := fmt.Sprint(rep.Duplicates); got != "[{1 [{0 0 1 1} {0 2 1 1}]}]" {
		t.Errorf("duplicates %s", got)
	}
	if rep.ExtraCopies != 1 {
		t.Errorf("extra copies %d", rep.ExtraCopies)
	}
	if got := fmt.Sprint(rep.LostWrites); got != "[{0 1 2 2}]" {
		t.Errorf("lost writes %s", got)
	}
	if got := fmt.Sprint(rep.Unseen); got != "[{0 4 6 6}]" {
		t.Errorf("unseen %s", got)
	}
	if got := fmt.Sprint(rep.AbortedReads); got != "[{0 7 7 7}]" {
		t.Errorf("aborted reads %s", got)
	}
}

// TestRecords: the duplicate, loss and unseen checks judge logical
// records, the aborted-read check writes. Record 30 is written three
// times (values 30, 1000000030, 2000000030): the first write failed and
// stays unread, the other two are read, a duplicate of record 30 though
// no value is read twice. Record 8's first write (8) was acknowledged at
// offset 5 and lost there, its second (1000000008) is read at offset 5:
// neither lost nor unseen, since offset 5 holds record 8. Record 9's
// only write failed, and is read: an aborted read, where a format 1
// history (a value per record) would have let record 9's ok write of
// another value excuse it.
func TestRecords(t *testing.T) {
	rep := check(t, append([]string{
		write(0, "fail", "30", 30),
		write(1, "ok", "[0,1000000030]", 30),
		write(2, "info", "2000000030", 30),
		write(3, "ok", "[5,8]", 8),
		write(4, "info", "1000000008", 8),
		write(5, "fail", "9", 9),
		write(6, "ok", "[7,1000000009]", 9),
	}, finals("[0,1000000030],[1,2000000030],[5,1000000008],[6,9],[7,1000000009]", "[0,1000000030],[1,2000000030],[5,1000000008],[6,9],[7,1000000009]")...)...)
	if got := fmt.Sprint(rep.Duplicates); got != "[{9 [{0 6 9 9} {0 7 1000000009 9}]} {30 [{0 0 1000000030 30} {0 1 2000000030 30}]}]" {
		t.Errorf("duplicates %s", got)
	}
	if rep.ExtraCopies != 2 {
		t.Errorf("extra copies %d", rep.ExtraCopies)
	}
	if len(rep.LostWrites)+len(rep.Unseen) != 0 {
		t.Errorf("lost writes %v, unseen %v", rep.LostWrites, rep.Unseen)
	}
	if got := fmt.Sprint(rep.AbortedReads); got != "[{0 6 9 9}]" {
		t.Errorf("aborted reads %s", got)
	}
}

// TestRefusesRepeatedValues: a history in which a value is written twice
// (a format 1 history of a record sent again, or two invocations of one
// value) is refused, as is one whose reads name a value no operation
// wrote.
func TestRefusesRepeatedValues(t *testing.T) {
	for _, c := range []struct {
		lines []string
		err   string
	}{
		{append([]string{send(0, "fail", "30"), send(1, "ok", "[0,30]")}, finals("[0,30]", "[0,30]")...),
			"value 30 is written twice, by operations 0 and 1"},
		{append([]string{write(0, "fail", "30", 30), write(1, "ok", "[0,30]", 30)}, finals("[0,30]", "[0,30]")...),
			"value 30 is written twice, by operations 0 and 1"},
		{append([]string{
			`{"index":0,"time":0,"process":0,"type":"invoke","f":"send","value":[["send",0,30]],"records":[30]}`,
			`{"index":1,"time":0,"process":1,"type":"invoke","f":"send","value":[["send",0,30]],"records":[30]}`,
		}, finals("", "")...), "value 30 is written twice, by operations 0 and 1"},
		{append([]string{
			`{"index":0,"time":0,"process":0,"type":"invoke","f":"send","value":[["send",0,30]],"records":[30]}`,
			`{"index":1,"time":0,"process":0,"type":"ok","f":"send","value":[["send",0,[0,30]]],"records":[31]}`,
		}, finals("[0,30]", "[0,30]")...), "value 30 names record 30 and, in operation 1, record 31"},
		{append([]string{write(0, "ok", "[0,1]", 1)}, finals("[0,1],[1,2]", "[0,1],[1,2]")...),
			"the final read_committed poll reads value 2 at key 0 offset 1, which no operation wrote"},
	} {
		ops, err := Read(strings.NewReader(strings.Join(c.lines, "\n")))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Check(ops); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Check: %v, want %q", err, c.err)
		}
	}
}

func TestTransactions(t *testing.T) {
	rep := check(t, append([]string{
		`{"index":0,"time":0,"process":0,"type":"ok","f":"txn","value":[["send",0,[0,1]],["send",0,[1,2]]]}`,
		`{"index":1,"time":1,"process":1,"type":"fail","f":"txn","value":[["send",0,3],["send",0,4]],"error":"aborted DELIVERY_TIMEOUT"}`,
	}, finals("[0,1],[1,2],[3,3]", "[0,1],[1,2],[3,3],[4,4]")...)...)
	if len(rep.AbortedReads) != 1 || rep.AbortedReads[0].Value != 3 || len(rep.LostWrites)+len(rep.Unseen)+len(rep.Duplicates) != 0 {
		t.Errorf("%+v", *rep)
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ line, err string }{
		{`{"index":0}`, `line 1: "time" is not an integer`},
		{`{"index":0,"time":0,"process":0,"type":"ok","f":"send","value":[["put",0,1]]}`, `unknown function put`},
		{`{"index":0,"time":0,"process":0,"type":"ok","f":"send","value":[["send",0,[1]]]}`, `want [offset, value]`},
		{`{"index":0,"time":0,"process":0,"type":"ok","f":"send","value":[["send",0,[1,2]]],"records":[2,3]}`, `"records" is not an array of one record per send (1 sends)`},
		{`{"index":0,"time":0,"process":0,"type":"ok","f":"send","value":[["send",0,[1,2]]],"records":["2"]}`, `"records": 2 is not an integer`},
		{`{"index":0,"time":0.5,"process":0}`, `want an integer`},
		{`[1,2`, `unterminated array`},
	} {
		_, err := Read(strings.NewReader(c.line))
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("Read(%s): %v, want %q", c.line, err, c.err)
		}
	}
	if _, err := Check(nil); err == nil {
		t.Error("Check of a history without final polls: no error")
	}
}
