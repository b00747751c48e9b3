package sim

import (
	"fmt"
	"strings"
)

// Error is a simulation that had to stop: a decision Batsim refuses
// (Batsim would abort), an input Batsim cannot run, or a deadlock.
type Error struct {
	Time float64 // simulated time
	Rule string  // what was violated
	// Event names the offending event, e.g. `EXECUTE_JOB w0!1`; "" when
	// the error is not about one event.
	Event string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Event != "" {
		return fmt.Sprintf("t=%.6f: %s: %s", e.Time, e.Event, e.Rule)
	}
	return fmt.Sprintf("t=%.6f: %s", e.Time, e.Rule)
}

// DeadlockError is a simulation that can no longer progress although it is
// not finished (Batsim would wait forever or abort).
type DeadlockError struct {
	Time float64
	// Waiting lists jobs submitted but never executed nor rejected.
	Waiting []string
	// RegistrationOpen is set when dynamic jobs are enabled and the
	// scheduler never sent NOTIFY registration_finished.
	RegistrationOpen bool
}

// Error implements error.
func (e *DeadlockError) Error() string {
	var parts []string
	if len(e.Waiting) > 0 {
		list := e.Waiting
		more := ""
		if len(list) > 10 {
			more = fmt.Sprintf(" and %d more", len(list)-10)
			list = list[:10]
		}
		parts = append(parts, fmt.Sprintf("%d job(s) were submitted but never executed nor rejected (%s%s)", len(e.Waiting), strings.Join(list, ", "), more))
	}
	if e.RegistrationOpen {
		parts = append(parts, "dynamic jobs are enabled but the scheduler never sent NOTIFY registration_finished")
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing left to simulate but the simulation is not finished")
	}
	return fmt.Sprintf("deadlock at t=%.6f: %s; Batsim would never send SIMULATION_ENDS", e.Time, strings.Join(parts, "; "))
}

// UnmodelledError lists what the inputs hold that changes what Batsim
// would do but that the engine does not model: it refuses rather than give
// results that only look like Batsim's (Config.Approximate runs anyway).
type UnmodelledError struct {
	Items []string
}

// Error implements error.
func (e *UnmodelledError) Error() string {
	return fmt.Sprintf("the engine does not reproduce Batsim exactly with these inputs: %s", strings.Join(e.Items, "; "))
}
