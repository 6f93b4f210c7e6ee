// Package layout holds the test that keeps guard's floors: each package imports only
// packages on the floors below its own (DEVELOPERS.md draws them).
package layout
