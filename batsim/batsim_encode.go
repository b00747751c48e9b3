package batsim

import (
	"sort"
	"strconv"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/internal/batsimfmt"
)

// EncodeBatsim writes a Batsim -> scheduler message exactly as Batsim 4.2.1
// puts it on the wire: compact JSON, members in the order Batsim's writer
// emits them, every double printed with C's "%f" (6 decimals), strings
// escaped like rapidjson (non-ASCII UTF-8 kept as is), and the job and
// profile descriptions (JobSubmitted.Job/Profile, SimulationBegins.Profiles,
// FromJobMsg.Msg) copied verbatim: they must already be in Batsim's spelling.
// Map-like objects (resource properties, workloads, profiles, job_progress)
// are written with sorted keys (Batsim uses its hash order; compare them as
// parsed objects).
func EncodeBatsim(m *Message) []byte { return encodeBatsim(m, batsimfmt.AppendFloat) }

// EncodeBatsimExact is EncodeBatsim with every double written as rapidjson's
// Writer writes it (the digits that read back as the same double) instead
// of with 6 decimals: the message of a Batsim whose clock is finer than
// Batsim 4's microsecond (Batsim 5 prints 12 decimals), handed to a Batsim 4
// decision process without rounding its times.
func EncodeBatsimExact(m *Message) []byte { return encodeBatsim(m, batsimfmt.AppendDouble) }

// encodeBatsim is EncodeBatsim with the doubles written by num.
func encodeBatsim(m *Message, num func([]byte, float64) []byte) []byte {
	b := make([]byte, 0, 128+96*len(m.Events))
	b = append(b, `{"now":`...)
	b = num(b, m.Now)
	b = append(b, `,"events":[`...)
	for i := range m.Events {
		if i > 0 {
			b = append(b, ',')
		}
		e := &m.Events[i]
		b = append(b, `{"timestamp":`...)
		b = num(b, e.Timestamp)
		b = append(b, `,"type":`...)
		b = batsimfmt.AppendString(b, e.Type)
		b = append(b, `,"data":`...)
		b = appendBatsimData(b, e.Data, num)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func appendRaw(b []byte, raw json.RawMessage, empty string) []byte {
	if len(raw) == 0 {
		return append(b, empty...)
	}
	return append(b, raw...)
}

func appendStringMap(b []byte, m map[string]string) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = batsimfmt.AppendString(b, k)
		b = append(b, ':')
		b = batsimfmt.AppendString(b, m[k])
	}
	return append(b, '}')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func appendResources(b []byte, rs []Resource) []byte {
	b = append(b, '[')
	for i := range rs {
		r := &rs[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = strconv.AppendInt(b, int64(r.ID), 10)
		b = append(b, `,"name":`...)
		b = batsimfmt.AppendString(b, r.Name)
		b = append(b, `,"state":`...)
		b = batsimfmt.AppendString(b, r.State)
		b = append(b, `,"properties":`...)
		b = appendStringMap(b, r.Properties)
		b = append(b, `,"zone_properties":`...)
		b = appendStringMap(b, r.ZoneProperties)
		b = append(b, '}')
	}
	return append(b, ']')
}

func appendProgress(b []byte, p *JobProgress, num func([]byte, float64) []byte) []byte {
	b = append(b, `{"profile_name":`...)
	b = batsimfmt.AppendString(b, p.ProfileName)
	if p.CurrentTaskIndex != nil || p.CurrentTask != nil {
		idx := -1
		if p.CurrentTaskIndex != nil {
			idx = *p.CurrentTaskIndex
		}
		b = append(b, `,"current_task_index":`...)
		b = strconv.AppendInt(b, int64(idx), 10)
		if p.CurrentTask != nil {
			b = append(b, `,"current_task":`...)
			b = appendProgress(b, p.CurrentTask, num)
		}
	} else {
		v := 0.0
		if p.Progress != nil {
			v = *p.Progress
		}
		b = append(b, `,"progress":`...)
		b = num(b, v)
	}
	return append(b, '}')
}

func appendBatsimData(b []byte, data any, num func([]byte, float64) []byte) []byte {
	switch d := data.(type) {
	case *SimulationBegins:
		b = append(b, `{"nb_resources":`...)
		b = strconv.AppendInt(b, int64(d.NbResources), 10)
		b = append(b, `,"nb_compute_resources":`...)
		b = strconv.AppendInt(b, int64(d.NbComputeResources), 10)
		b = append(b, `,"nb_storage_resources":`...)
		b = strconv.AppendInt(b, int64(d.NbStorageResources), 10)
		b = append(b, `,"allow_compute_sharing":`...)
		b = appendBool(b, d.AllowComputeSharing)
		b = append(b, `,"allow_storage_sharing":`...)
		b = appendBool(b, d.AllowStorageSharing)
		c := &d.Config
		b = append(b, `,"config":{"redis-enabled":`...)
		b = appendBool(b, c.RedisEnabled)
		b = append(b, `,"redis-hostname":`...)
		b = batsimfmt.AppendString(b, c.RedisHostname)
		b = append(b, `,"redis-port":`...)
		b = strconv.AppendInt(b, int64(c.RedisPort), 10)
		b = append(b, `,"redis-prefix":`...)
		b = batsimfmt.AppendString(b, c.RedisPrefix)
		b = append(b, `,"profiles-forwarded-on-submission":`...)
		b = appendBool(b, c.ProfilesForwardedOnSubmission)
		b = append(b, `,"dynamic-jobs-enabled":`...)
		b = appendBool(b, c.DynamicJobsEnabled)
		b = append(b, `,"dynamic-jobs-acknowledged":`...)
		b = appendBool(b, c.DynamicJobsAcknowledged)
		b = append(b, `,"profile-reuse-enabled":`...)
		b = appendBool(b, c.ProfileReuseEnabled)
		b = append(b, `,"sched-config":`...)
		b = batsimfmt.AppendString(b, c.SchedConfig)
		b = append(b, `,"forward-unknown-events":`...)
		b = appendBool(b, c.ForwardUnknownEvents)
		b = append(b, `},"compute_resources":`...)
		b = appendResources(b, d.ComputeResources)
		b = append(b, `,"storage_resources":`...)
		b = appendResources(b, d.StorageResources)
		b = append(b, `,"workloads":`...)
		b = appendStringMap(b, d.Workloads)
		b = append(b, `,"profiles":{`...)
		wls := make([]string, 0, len(d.Profiles))
		for k := range d.Profiles {
			wls = append(wls, k)
		}
		sort.Strings(wls)
		for i, wl := range wls {
			if i > 0 {
				b = append(b, ',')
			}
			b = batsimfmt.AppendString(b, wl)
			b = append(b, ":{"...)
			names := make([]string, 0, len(d.Profiles[wl]))
			for n := range d.Profiles[wl] {
				names = append(names, n)
			}
			sort.Strings(names)
			for j, n := range names {
				if j > 0 {
					b = append(b, ',')
				}
				b = batsimfmt.AppendString(b, n)
				b = append(b, ':')
				b = appendRaw(b, d.Profiles[wl][n], "{}")
			}
			b = append(b, '}')
		}
		return append(b, "}}"...)
	case *SimulationEnds, *RequestedCall:
		return append(b, "{}"...)
	case *JobSubmitted:
		b = append(b, `{"job_id":`...)
		b = batsimfmt.AppendString(b, d.JobID)
		if len(d.Job) > 0 {
			b = append(b, `,"job":`...)
			b = append(b, d.Job...)
		}
		if len(d.Profile) > 0 {
			b = append(b, `,"profile":`...)
			b = append(b, d.Profile...)
		}
		return append(b, '}')
	case *JobCompleted:
		b = append(b, `{"job_id":`...)
		b = batsimfmt.AppendString(b, d.JobID)
		b = append(b, `,"job_state":`...)
		b = batsimfmt.AppendString(b, d.JobState)
		b = append(b, `,"return_code":`...)
		b = strconv.AppendInt(b, int64(d.ReturnCode), 10)
		b = append(b, `,"alloc":`...)
		b = batsimfmt.AppendString(b, d.Alloc)
		return append(b, '}')
	case *JobKilled:
		b = append(b, `{"job_ids":[`...)
		for i, id := range d.JobIDs {
			if i > 0 {
				b = append(b, ',')
			}
			b = batsimfmt.AppendString(b, id)
		}
		b = append(b, `],"job_progress":{`...)
		ids := make([]string, 0, len(d.JobProgress))
		for id := range d.JobProgress {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for i, id := range ids {
			if i > 0 {
				b = append(b, ',')
			}
			b = batsimfmt.AppendString(b, id)
			b = append(b, ':')
			b = appendProgress(b, d.JobProgress[id], num)
		}
		return append(b, "}}"...)
	case *Notify:
		if len(d.Raw) > 0 && d.Kind != NotifyNoMoreStaticJobToSubmit && d.Kind != NotifyNoMoreExternalEventToOccur &&
			d.Kind != NotifyMachineAvailable && d.Kind != NotifyMachineUnavailable {
			return append(b, d.Raw...)
		}
		b = append(b, `{"type":`...)
		b = batsimfmt.AppendString(b, d.Kind)
		if d.Kind == NotifyMachineAvailable || d.Kind == NotifyMachineUnavailable {
			b = append(b, `,"resources":`...)
			b = batsimfmt.AppendString(b, d.Resources)
		}
		return append(b, '}')
	case *ResourceStateChanged:
		b = append(b, `{"resources":`...)
		b = batsimfmt.AppendString(b, d.Resources)
		b = append(b, `,"state":`...)
		b = batsimfmt.AppendString(b, d.State)
		return append(b, '}')
	case *FromJobMsg:
		b = append(b, `{"job_id":`...)
		b = batsimfmt.AppendString(b, d.JobID)
		b = append(b, `,"msg":`...)
		b = appendRaw(b, d.Msg, "{}")
		return append(b, '}')
	case *BatsimAnswer:
		b = append(b, `{"consumed_energy":`...)
		b = num(b, d.ConsumedEnergy)
		return append(b, '}')
	case *Unknown:
		return appendRaw(b, d.Raw, "{}")
	case nil:
		return append(b, "{}"...)
	}
	raw, err := json.Marshal(data)
	if err != nil || len(raw) == 0 || raw[0] != '{' {
		return append(b, "{}"...)
	}
	return append(b, raw...)
}
