// Package guardtest is the test kit every package of guard's tests shares: a
// hermetic git (Git, GitEnv, Commit: no user or system configuration, HOME in the
// test's temporary directory, one fixed author, committer and date), a Clock a test
// moves by hand instead of sleeping, the guard binary built once per go test run
// (Binary), running a test helper as another user (AsNobody), and the one -update
// flag of the golden files (Golden).
//
// It imports nothing of guard's own, so that lockcore's and guard's tests can use it
// too; the guard.Env builder, which needs package guard, is guardtest/envtest.
package guardtest
