package htmlpage

import (
	_ "embed"
	"html"
	"io"
	"strings"
)

//go:embed assets/index.css
var indexCSS string

// Index is a sweep's or an exploration's index page: its report and a
// link to the page of each run it kept.
type Index struct {
	// Title is the page's title.
	Title string
	// Report is the directory's report.md, rendered on the page; its
	// charts are the image files beside index.html.
	Report string
	// RunsTitle heads the list of runs ("Failing seeds").
	RunsTitle string
	Runs      []IndexRun
	// Note, if not "", is said above the list of runs.
	Note string
}

// IndexRun is one run page an index links to.
type IndexRun struct {
	// Label says which run it is ("net.response_loss=0.15, idempotence
	// off, seed 4").
	Label string
	// Href is the page's file name, beside index.html.
	Href string
	// Verdict is what the run broke ("INV-DUP, INV-ORDER").
	Verdict string
}

// WriteIndex writes an index page to w. It loads nothing from the
// network; the charts are the report's image files beside it.
func WriteIndex(w io.Writer, ix Index) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>" + html.EscapeString(ix.Title) + "</title>\n<style>\n" + indexCSS + "</style>\n</head>\n<body>\n")
	b.WriteString("<h1>" + html.EscapeString(ix.Title) + "</h1>\n")
	if len(ix.Runs) > 0 || ix.Note != "" {
		b.WriteString("<section id=\"runs\">\n<h2>" + html.EscapeString(ix.RunsTitle) + "</h2>\n")
		if ix.Note != "" {
			b.WriteString("<p>" + html.EscapeString(ix.Note) + "</p>\n")
		}
		if len(ix.Runs) > 0 {
			b.WriteString("<table class=\"runs\">\n<tr><th>run</th><th>broke</th><th>page</th></tr>\n")
			for _, r := range ix.Runs {
				b.WriteString("<tr><td>" + html.EscapeString(r.Label) + "</td><td>" + html.EscapeString(r.Verdict) + "</td><td><a href=\"" + html.EscapeString(r.Href) + "\">" + html.EscapeString(r.Href) + "</a></td></tr>\n")
			}
			b.WriteString("</table>\n")
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("<section id=\"report\">\n" + markdownHTML(ix.Report) + "</section>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
