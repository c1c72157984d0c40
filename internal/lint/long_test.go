package lint

import "flag"

// long runs the tests that build the module again with files laid over
// it (the extension recipes): each recompiles most packages, so
// go test ./... leaves them out and .ci/run runs them with -long.
var long = flag.Bool("long", false, "also build the command and the packages with each extension recipe's files laid over the tree")
