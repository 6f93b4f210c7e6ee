// Package sandbox runs a command so that the kernel itself refuses every write into an
// area another owner has locked (CONTRACT.md section 11): guard.Policy says which
// areas an identity may not change, NewPlan turns their complement into rules on
// whole folders and single files, and on Linux Landlock enforces them on the command
// and everything it starts.
//
// Landlock grants rights to whole hierarchies and cannot take them back below, so
// "everything except P/locked" is written as full rights on every sibling on the way
// down from / to P/locked, and write rights on the existing files of each folder on
// that way (a boundary folder). What those rules cannot say is refused: nothing can
// be created, removed or renamed directly in a boundary folder, and files cannot be
// moved or linked into or out of a read-only area. The README lists these limits and
// the errors a user sees.
package sandbox
