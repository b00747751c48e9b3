package zmq

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
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

// A frame is read into a buffer of its announced size up to zmtpTrusted,
// and beyond it grows with the bytes that arrive: a peer announcing 2 GiB
// and sending a few bytes makes the reader allocate no more than
// zmtpTrusted, and a frame just above zmtpTrusted is read whole.
func TestZMTPFrameSizes(t *testing.T) {
	frame := func(size uint64, body []byte) *zmtpConn {
		b := []byte{zmtpLong}
		b = binary.BigEndian.AppendUint64(b, size)
		return &zmtpConn{r: bufio.NewReader(bytes.NewReader(append(b, body...)))}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := frame(zmtpMaxFrame, []byte("0123456789")).frame()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > zmtpTrusted+1<<20 {
		t.Errorf("a frame announcing %d bytes and sending 10 allocated %d bytes", uint64(zmtpMaxFrame), alloc)
	}
	body := make([]byte, zmtpTrusted+5)
	for i := range body {
		body[i] = byte(i)
	}
	_, got, err := frame(uint64(len(body)), body).frame()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("a frame of %d bytes: %v, %d bytes read", len(body), err, len(got))
	}
}
