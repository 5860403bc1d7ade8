package referee

import (
	"os"
	"syscall"
)

// protocolStdout keeps the real stdout for frames and points file descriptor 1 (and os.Stdout) at stderr, so that a
// stray fmt.Println cannot corrupt the protocol stream (PROTOCOL.md section 2).
func protocolStdout() *os.File {
	fd, err := syscall.Dup(1)
	if err != nil {
		return os.Stdout
	}
	syscall.CloseOnExec(fd)
	frames := os.NewFile(uintptr(fd), "protocol-stdout")
	if syscall.Dup3(2, 1, 0) == nil {
		os.Stdout = os.Stderr
	}
	return frames
}
