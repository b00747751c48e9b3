package sim

// tally does the hosts' time accounting (Machine::update_machine_state:
// the time each host spends in each state, in long doubles) on its own
// goroutine, since nothing reads the sums before the simulation is over:
// the simulation only records, in order, which host left which state when
// (spend), and the sums are those of the same additions done in the same
// order, so they are exactly those of doing them at once.
type tally struct {
	// since is each host's last change of state (owned by the worker).
	since []float64
	batch []spent
	work  chan []spent
	free  chan []spent
	done  chan struct{}
}

// spent is one change of state: host h spent the time since its last
// change in the state whose sum is acc, and changes state at t.
type spent struct {
	acc *ld
	h   int
	t   float64
}

// tallyBatch is how many changes are handed over at once: enough work to
// outweigh waking the worker (a few hundred microseconds).
const tallyBatch = 8192

func newTally(hosts int) *tally {
	return &tally{since: make([]float64, hosts)}
}

// spend records that host h spent the time since its last change in the
// state of acc, and changes state at t.
func (y *tally) spend(acc *ld, h int, t float64) {
	if y.batch == nil {
		y.batch = make([]spent, 0, tallyBatch)
	}
	y.batch = append(y.batch, spent{acc, h, t})
	if len(y.batch) == tallyBatch {
		y.handOver()
	}
}

// handOver gives the batch to the worker, started at the first one.
func (y *tally) handOver() {
	if y.work == nil {
		y.work = make(chan []spent, 2)
		y.free = make(chan []spent, 3)
		y.done = make(chan struct{})
		go y.worker()
	}
	y.work <- y.batch
	select {
	case b := <-y.free:
		y.batch = b[:0]
	default:
		y.batch = make([]spent, 0, tallyBatch)
	}
}

func (y *tally) worker() {
	defer close(y.done)
	for b := range y.work {
		y.add(b)
		select {
		case y.free <- b:
		default:
		}
	}
}

// add does the additions of b, in order.
func (y *tally) add(b []spent) {
	for i := range b {
		s := &b[i]
		if since := y.since[s.h]; s.t != since {
			var a, c, d ld
			d.sub(a.setF(s.t), c.setF(since))
			s.acc.add(s.acc, &d)
		}
		y.since[s.h] = s.t
	}
}

// finish does every addition still pending and stops the worker: the sums
// are complete when it returns.
func (y *tally) finish() {
	if y.work != nil {
		close(y.work)
		<-y.done
		y.work = nil
	}
	y.add(y.batch)
	y.batch = y.batch[:0]
}
