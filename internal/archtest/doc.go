// Package archtest holds the checks of lore's structure as
// docs/architecture.md draws it: which packages may import which, how
// large a package and a file of cmd/lore may grow, and what a front end
// may not do. It has no code of its own: go test runs the checks, on the
// imports go list reports.
package archtest
