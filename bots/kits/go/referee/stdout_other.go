//go:build !linux

package referee

import "os"

// protocolStdout: elsewhere than Linux stdout stays as it is; write logs with Log (stderr), never fmt.Println.
func protocolStdout() *os.File { return os.Stdout }
