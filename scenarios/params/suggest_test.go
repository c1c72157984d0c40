package params

import "testing"

func TestSuggest(t *testing.T) {
	keys := []string{"net.request_loss", "net.response_loss", "acks", "batch.size"}
	for _, c := range []struct{ name, want string }{
		{"net.respons_loss", "net.response_loss"},
		{"net.reponse_loss", "net.response_loss"},
		{"akcs", "acks"}, // a swap of neighbours is one edit
		{"ack", "acks"},  // a short name allows one edit
		{"ak", ""},       // ... and no more
		{"acks", ""},     // an exact name is not a typo
		{"xyz.q", ""},    // nothing close
		{"batch_size", "batch.size"},
	} {
		if got := Suggest(c.name, keys); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if got := DidYouMean("zombi", []string{"zombie", "wrap"}); got != " (did you mean zombie?)" {
		t.Errorf("DidYouMean = %q", got)
	}
}
