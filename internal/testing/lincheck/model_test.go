package lincheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
)

const sec = int64(time.Second)

// op builds one operation of a synthetic history (times in seconds).
func op(client int, kind Kind, fence int64, call, ret float64, out Output) porcupine.Operation {
	c, r := int64(call*float64(sec)), int64(ret*float64(sec))
	in := Input{Kind: kind, Client: client, Fence: fence, Call: c, Return: r}
	return porcupine.Operation{ClientId: client, Input: in, Call: c, Output: out, Return: r}
}

func ok(fence int64) Output { return Output{OK: true, Fence: fence, Code: 0} }

var no = Output{Code: 1}

func check(ops ...porcupine.Operation) porcupine.CheckResult {
	m := Model{TTL: 3 * time.Second, Slack: time.Second}
	return porcupine.CheckOperationsTimeout(m.Porcupine(), ops, time.Minute)
}

func TestModelAcceptsAHandOverByReleaseAndByExpiry(t *testing.T) {
	assert.Equal(t, porcupine.Ok, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(1, Acquire, 0, 0.05, 0.2, no), // refused while c0 holds
		op(0, Write, 10, 0.2, 0.3, ok(0)),
		op(0, Release, 10, 0.4, 0.5, ok(0)),
		op(1, Acquire, 0, 0.45, 0.6, ok(11)), // concurrent with the release: after it
		op(1, Write, 11, 0.7, 0.8, ok(0)),
		op(0, Write, 10, 0.7, 0.8, Output{Code: 1}), // superseded: rejected
		// c1 never releases; c0 takes over once the lease (0.45+3-1 s) may be over.
		op(0, Acquire, 0, 2.0, 2.5, ok(12)),
		op(1, Write, 11, 2.6, 2.7, Output{Code: 1}),
	))
}

func TestModelRejectsTwoHoldersAtOnce(t *testing.T) {
	assert.Equal(t, porcupine.Illegal, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(1, Acquire, 0, 0.5, 0.6, ok(11)), // c0's lease runs to at least 2 s
	))
}

func TestModelRejectsFencesThatDoNotIncrease(t *testing.T) {
	assert.Equal(t, porcupine.Illegal, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(0, Release, 10, 0.2, 0.3, ok(0)),
		op(1, Acquire, 0, 0.4, 0.5, ok(10)),
	))
}

func TestModelRejectsAWriteUnderASupersededFence(t *testing.T) {
	assert.Equal(t, porcupine.Illegal, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(0, Release, 10, 0.2, 0.3, ok(0)),
		op(1, Acquire, 0, 0.4, 0.5, ok(11)),
		op(0, Write, 10, 0.6, 0.7, ok(0)),
	))
}

func TestModelRejectsARenewalAfterATakeover(t *testing.T) {
	assert.Equal(t, porcupine.Illegal, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(1, Acquire, 0, 2.5, 2.6, ok(11)),
		op(0, Renew, 10, 2.7, 2.8, ok(0)),
	))
}

func TestModelRejectsARunThatExitedZeroAfterItsLockWasTaken(t *testing.T) {
	assert.Equal(t, porcupine.Illegal, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(1, Acquire, 0, 2.5, 2.6, ok(11)),
		op(0, RunEnd, 10, 2.7, 2.8, ok(0)),
	))
	// Exit 5 says the lock was lost: legal.
	assert.Equal(t, porcupine.Ok, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(1, Acquire, 0, 2.5, 2.6, ok(11)),
		op(0, RunEnd, 10, 2.7, 2.8, Output{Code: 5}),
	))
}

func TestModelLetsAFailedReleaseGoEitherWay(t *testing.T) {
	assert.Equal(t, porcupine.Ok, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(0, Release, 10, 0.2, 0.3, Output{Code: 2, Unknown: true}),
		op(1, Acquire, 0, 0.4, 0.5, ok(11)),
	))
	assert.Equal(t, porcupine.Illegal, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),
		op(0, Release, 10, 0.2, 0.3, Output{Code: 1}), // refused: nothing released
		op(1, Acquire, 0, 0.4, 0.5, ok(11)),
	))
}

func TestCheckWritesTheVisualisationOfAnIllegalHistory(t *testing.T) {
	h := NewHistory()
	h.BeginAt(0, 0, Acquire, "guard lock", 0).End(ok(10))
	h.Begin(1, Acquire, "guard lock", 0).End(ok(11))
	ft := &fakeT{TB: t}
	Check(ft, Model{TTL: 3 * time.Second, Slack: time.Second}, h)
	assert.True(t, ft.failed)
	assert.Contains(t, ft.msg, "Illegal")
	path := regexp.MustCompile(`visualisation: (\S+\.html)`).FindStringSubmatch(ft.msg)
	if assert.Len(t, path, 2, ft.msg) {
		data, err := os.ReadFile(path[1])
		assert.NoError(t, err)
		assert.Contains(t, string(data), "<html")
		os.RemoveAll(filepath.Dir(path[1]))
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = true
	f.msg += fmt.Sprintf(format, args...)
}
func (f *fakeT) Helper() {}

func TestModelKeepsALockARunFoundHeld(t *testing.T) {
	keep := op(0, RunEnd, 10, 0.4, 0.5, ok(0))
	in := keep.Input.(Input)
	in.Keep = true
	keep.Input = in
	assert.Equal(t, porcupine.Ok, check(
		op(0, Acquire, 0, 0, 0.1, ok(10)),   // guard lock
		op(0, Acquire, 0, 0.2, 0.3, ok(10)), // guard run renewed it
		keep,
		op(0, Acquire, 0, 0.6, 0.7, ok(10)), // guard lock renews it again
		op(1, Acquire, 0, 0.8, 0.9, no),
	))
}
