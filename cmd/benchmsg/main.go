// Command benchmsg measures the memory "bucma run" takes to answer one large
// Batsim message: it starts bucma run (the executable given with -bucma) on
// a loopback port, plays Batsim's side (SIMULATION_BEGINS on two hosts,
// then one JOB_SUBMITTED of about -mb megabytes, then SIMULATION_ENDS),
// and prints the message's size and the process's peak resident memory
// (VmHWM of /proc/PID/status once the message is answered; elsewhere than
// Linux, getrusage's ru_maxrss once it exited), for each shape of message:
//
//   - string: the job carries one long string field (a job description
//     with a large annotation);
//   - numbers: the job carries one long array of numbers;
//   - profile: the job's profile is forwarded with it (Batsim's
//     --forward-profiles-on-submission) and is a parallel profile whose
//     com matrix holds the bytes.
//
// `go run ./cmd/benchmsg -bucma bin/bucma` after `make build`.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/bucma-sched/bucma/batsim/zmq"
)

func main() {
	bin := flag.String("bucma", "bin/bucma", "bucma executable")
	mb := flag.Int("mb", 50, "size of the JOB_SUBMITTED message, in MB (10^6 bytes)")
	shapes := flag.String("shapes", "string,numbers,profile", "message shapes to measure (comma-separated)")
	scheduler := flag.String("scheduler", "easy", "policy of bucma run")
	transport := flag.String("transport", "native", "transport of bucma run (native or libzmq)")
	flag.Parse()
	host, _ := os.Hostname()
	fmt.Printf("# benchmsg: bucma run --scheduler %s --transport %s, one JOB_SUBMITTED of about %d MB; %s, %d CPUs, %s/%s, %s, %s\n",
		*scheduler, *transport, *mb, host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), time.Now().Format("2006-01-02"))
	for _, shape := range strings.Split(*shapes, ",") {
		if _, err := submitted(shape, 1); err != nil {
			fmt.Fprintln(os.Stderr, "benchmsg:", err)
			os.Exit(2)
		}
		size, peak, err := measure(*bin, []string{"--scheduler", *scheduler, "--transport", *transport}, func() []byte {
			msg, _ := submitted(shape, *mb*1_000_000)
			return msg
		})
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchmsg: %s: %v\n", shape, err)
			os.Exit(1)
		}
		fmt.Printf("%-8s message %6.1f MB  peak RSS %6.1f MB  (%.2f× the message)\n", shape, float64(size)/1e6, float64(peak)/1e6, float64(peak)/float64(size))
	}
}

// begins is a SIMULATION_BEGINS on two hosts, forwarding profiles.
const begins = `{"now":0.000000,"events":[{"timestamp":0.000000,"type":"SIMULATION_BEGINS","data":{"nb_resources":2,"nb_compute_resources":2,"nb_storage_resources":0,"allow_compute_sharing":false,"allow_storage_sharing":true,"config":{"redis-enabled":false,"redis-hostname":"127.0.0.1","redis-port":6379,"redis-prefix":"default","profiles-forwarded-on-submission":true,"dynamic-jobs-enabled":false,"dynamic-jobs-acknowledged":false,"profile-reuse-enabled":false,"sched-config":"","forward-unknown-events":false},"compute_resources":[{"id":0,"name":"h0","state":"idle","properties":{"role":""},"zone_properties":{}},{"id":1,"name":"h1","state":"idle","properties":{"role":""},"zone_properties":{}}],"storage_resources":[],"workloads":{"w0":"w.json"},"profiles":{"w0":{}}}}]}`

const ends = `{"now":2.000000,"events":[{"timestamp":2.000000,"type":"SIMULATION_ENDS","data":{}}]}`

// submitted returns a JOB_SUBMITTED message of about size bytes.
func submitted(shape string, size int) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(size + 1024)
	b.WriteString(`{"now":1.000000,"events":[{"timestamp":1.000000,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","subtime":1.0,"walltime":100.0,"res":1,"profile":"p"`)
	switch shape {
	case "string":
		b.WriteString(`,"note":"`)
		for b.Len() < size {
			b.WriteString("abcdefghijklmnopqrstuvwxyz0123456789")
		}
		b.WriteString(`"}`)
	case "numbers":
		b.WriteString(`,"samples":[`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d.%03d", i%1000, i%997)
		}
		b.WriteString(`]}`)
	case "profile":
		// A parallel profile on n hosts: n cpu values and n×n com values
		// of about 8 bytes each.
		n := 1
		for 8*(n+1)*(n+1) < size {
			n++
		}
		b.Reset()
		fmt.Fprintf(&b, `{"now":1.000000,"events":[{"timestamp":1.000000,"type":"JOB_SUBMITTED","data":{"job_id":"w0!1","job":{"id":"w0!1","subtime":1.0,"walltime":100.0,"res":%d,"profile":"p"},"profile":{"type":"parallel","cpu":[`, n)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("1000000")
		}
		b.WriteString(`],"com":[`)
		for i := 0; i < n*n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("1024.50")
		}
		b.WriteString(`]}}}]}`)
		return b.Bytes(), nil
	default:
		return nil, fmt.Errorf("unknown shape %q (string, numbers, profile)", shape)
	}
	b.WriteString(`}}]}`)
	return b.Bytes(), nil
}

// measure runs bucma run, plays the three messages (the second made by
// build) and returns the second's size and the peak resident memory of the
// process, in bytes. The message is made once the process runs: a process
// started by a large one (this one, once it holds the message) would
// inherit its peak (Linux counts the memory of the process it was forked
// from in a child's ru_maxrss).
func measure(bin string, args []string, build func() []byte) (int, int64, error) {
	dir, err := os.MkdirTemp("", "benchmsg")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	epFile := filepath.Join(dir, "ep")
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"run", "-s", "tcp://127.0.0.1:*", "--endpoint-file", epFile, "--timeout", "2m"}, args...)...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer cmd.Process.Kill()
	var ep []byte
	for deadline := time.Now().Add(30 * time.Second); len(ep) == 0; {
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("bucma run wrote no endpoint file:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
		ep, _ = os.ReadFile(epFile)
	}
	msg := build()
	c, err := zmq.Dial(strings.TrimSpace(string(ep)))
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	c.Timeout = 2 * time.Minute
	var hwm int64
	for i, m := range [][]byte{[]byte(begins), msg, []byte(ends)} {
		if i == 2 {
			// The large message is answered: its peak is behind.
			hwm = peakOf(cmd.Process.Pid)
		}
		if _, err := c.Exchange(m); err != nil {
			return 0, 0, fmt.Errorf("%v\n%s", err, stderr.String())
		}
	}
	if err := cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("bucma run: %v\n%s", err, stderr.String())
	}
	if hwm > 0 {
		return len(msg), hwm, nil
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, fmt.Errorf("no resource usage on %s", runtime.GOOS)
	}
	return len(msg), ru.Maxrss * 1024, nil
}

// peakOf reads the peak resident memory of process pid (VmHWM, Linux), in
// bytes; 0 when unknown.
func peakOf(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}
