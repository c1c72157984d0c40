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

func send(i int, typ, value string) string {
	return fmt.Sprintf(`{"index":%d,"time":%d,"process":%d,"type":%q,"f":"send","value":[["send",0,%s]]}`, i, i, i, typ, value)
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
		send(1, "ok", "[1,2]"),    // nowhere: lost, and unseen at offset 1
		send(2, "ok", "[null,5]"), // acknowledged without an offset, read at 3
		send(3, "ok", "[4,6]"),    // read at 5, not at 4: unseen at its offset
		send(4, "fail", "7"),      // its only send failed, yet read: an aborted read
		send(5, "fail", "8"),      // failed once, ok once: not an aborted read
		send(6, "ok", "[6,8]"),
	}, finals("[0,1],[1,3],[2,1],[3,5],[5,6],[6,8],[7,7]", "[0,1],[1,3],[2,1],[3,5],[4,9],[5,6],[6,8],[7,7]")...)...)
	if got := fmt.Sprint(rep.Duplicates); got != "[{1 [{0 0 1} {0 2 1}]}]" {
		t.Errorf("duplicates %s", got)
	}
	if rep.ExtraCopies != 1 {
		t.Errorf("extra copies %d", rep.ExtraCopies)
	}
	if got := fmt.Sprint(rep.LostWrites); got != "[{0 1 2}]" {
		t.Errorf("lost writes %s", got)
	}
	if got := fmt.Sprint(rep.Unseen); got != "[{0 1 2} {0 4 6}]" {
		t.Errorf("unseen %s", got)
	}
	if got := fmt.Sprint(rep.AbortedReads); got != "[{0 7 7}]" {
		t.Errorf("aborted reads %s", got)
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
