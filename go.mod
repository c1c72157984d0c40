module github.com/idemsim/idemsim

go 1.26

require (
	github.com/cockroachdb/datadriven v1.0.3
	go.yaml.in/yaml/v3 v3.0.6
	pgregory.net/rapid v1.3.0
)

require github.com/pmezard/go-difflib v1.0.0 // indirect
