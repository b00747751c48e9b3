package zmq

import (
	"bufio"
	"bytes"
	"net"
	"testing"

	"github.com/bucma-sched/bucma/internal/fuzzguard"
)

// FuzzZMTPRecv: whatever bytes a peer sends after the handshake, reading a
// request gives a message or an error, never a panic nor a stall.
func FuzzZMTPRecv(f *testing.F) {
	for _, s := range [][]byte{
		{0x01, 0x00, 0x00, 0x02, '{', '}'},
		{0x04, 0x07, 4, 'P', 'I', 'N', 'G', 0, 1, 0x01, 0x00, 0x00, 0x00},
		{0x01, 0x00, 0x02, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF},
		{0x01, 0x00, 0x01, 0x01, 'a', 0x00, 0x01, 'b'},
		{0x00, 0x00},
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fuzzguard.Run(t, func() error {
			a, b := net.Pipe()
			defer a.Close()
			defer b.Close()
			go func() { // drain PONGs
				buf := make([]byte, 256)
				for {
					if _, err := b.Read(buf); err != nil {
						return
					}
				}
			}()
			z := &zmtpConn{c: a, r: bufio.NewReader(bytes.NewReader(in))}
			_, _ = z.recv()
			return nil
		})
	})
}
