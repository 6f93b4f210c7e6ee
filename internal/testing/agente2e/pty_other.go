//go:build !linux

package agente2e

import (
	"errors"
	"os"
	"syscall"
)

func openPTY() (control, term *os.File, err error) {
	return nil, nil, errors.New("the interactive tests open a pseudo-terminal on Linux only")
}

func ttyAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
