module github.com/idemsim/idemsim

go 1.26
