package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"unsafe"

	json "github.com/goccy/go-json"

	"github.com/bucma-sched/bucma/cli"
	"github.com/bucma-sched/bucma/platforms"
	"github.com/bucma-sched/bucma/policies"
	"github.com/bucma-sched/bucma/run/pull"
	"github.com/bucma-sched/bucma/sched"
)

// request is a call of bucmapy_call or bucmapy_task: a function's name and
// its arguments.
type request struct {
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args"`
}

func parseRequest(data []byte) (request, error) {
	var r request
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return r, &sched.OptionError{Msg: fmt.Sprintf("request: %v", err)}
	}
	return r, nil
}

// policyInfo describes a policy of the registry.
type policyInfo struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Options     []sched.OptionSpec `json:"options"`
}

// calls are bucmapy_call's functions: quick ones, answered at once.
var calls = map[string]func(args json.RawMessage) (any, error){
	"policies": func(json.RawMessage) (any, error) {
		reg := policies.Builtin()
		var out []policyInfo
		for _, n := range reg.Names() {
			s, _ := reg.Get(n)
			out = append(out, policyInfo{Name: s.Name, Description: s.Description, Options: s.Options})
		}
		return out, nil
	},
	"platforms": func(json.RawMessage) (any, error) {
		var out []string
		for _, n := range platforms.BundledNames() {
			name, _ := platforms.BundledName(n)
			out = append(out, name)
		}
		return out, nil
	},
	"platform_xml": func(args json.RawMessage) (any, error) {
		var name string
		if err := json.Unmarshal(args, &name); err != nil {
			return nil, &sched.OptionError{Msg: fmt.Sprintf("platform_xml: %v", err)}
		}
		b, err := platforms.BundledXML(name)
		if err != nil {
			return nil, &sched.OptionError{Msg: err.Error()}
		}
		return string(b), nil
	},
}

// bucmapy_call answers a quick call ({"fn", "args"}, JSON) with JSON in
// *out, C memory the caller frees with bucmapy_free.
//
//export bucmapy_call
func bucmapy_call(req *C.char, n C.int64_t, out **C.uint8_t, size *C.int64_t, err **C.char) (status C.int32_t) {
	defer guard(&status, err)
	*out, *size = nil, 0
	r, e := parseRequest(goBytes(req, n))
	if e != nil {
		return fail(e, err)
	}
	f, ok := calls[r.Fn]
	if !ok {
		return fail(&pull.UsageError{Msg: fmt.Sprintf("no call %q", r.Fn)}, err)
	}
	v, e := f(r.Args)
	if e != nil {
		return fail(e, err)
	}
	b, e := json.Marshal(v)
	if e != nil {
		return fail(e, err)
	}
	p := C.malloc(C.size_t(max(len(b), 1)))
	if len(b) > 0 {
		C.memcpy(p, unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	*out, *size = (*C.uint8_t)(p), C.int64_t(len(b))
	return 0
}

// commandArgs are a command line of bucma's (cli.Command).
type commandArgs struct {
	Args []string `json:"args"`
}

// bucmapy_task starts a long job as a run without points, whose handle is
// stepped like a run's (bucmapy_next returns Running until the end, its
// output is bucmapy_result's): "command" runs one of bucma's commands
// that a program may embed (cli.Embeddable: args), its output
// {"stdout", "stderr"}; "campaign" runs a campaign (pull.CampaignConfig).
//
//export bucmapy_task
func bucmapy_task(req *C.char, n C.int64_t, id *C.int64_t, err **C.char) (status C.int32_t) {
	defer guard(&status, err)
	r, e := parseRequest(goBytes(req, n))
	if e != nil {
		return fail(e, err)
	}
	logs := newLogBuffer(false)
	var run *pull.Run
	switch r.Fn {
	case "command":
		var a commandArgs
		if e := json.Unmarshal(r.Args, &a); e != nil {
			return fail(&sched.OptionError{Msg: fmt.Sprintf("command: %v", e)}, err)
		}
		args := append([]string{"bucma"}, a.Args...)
		run = pull.Task(func(context.Context) ([]byte, error) {
			var stdout, stderr bytes.Buffer
			code, e := cli.Command(args, policies.Builtin(), &stdout, &stderr)
			if e != nil {
				if code == 2 {
					e = &sched.OptionError{Msg: e.Error()}
				}
				return nil, commandError{err: e, output: stdout.String() + stderr.String()}
			}
			return json.Marshal(map[string]string{"stdout": stdout.String(), "stderr": stderr.String()})
		}, 0)
	case "campaign":
		var c pull.CampaignConfig
		dec := json.NewDecoder(bytes.NewReader(r.Args))
		dec.DisallowUnknownFields()
		if e := dec.Decode(&c); e != nil {
			return fail(&sched.OptionError{Msg: fmt.Sprintf("campaign: %v", e)}, err)
		}
		if run, e = pull.Campaign(c, policies.Builtin(), logs.logger(), 0); e != nil {
			return fail(e, err)
		}
	default:
		return fail(&pull.UsageError{Msg: fmt.Sprintf("no task %q", r.Fn)}, err)
	}
	return register(run, logs, false, id)
}

// commandError is a command's error with what it wrote (its findings, a
// usage message).
type commandError struct {
	err    error
	output string
}

func (e commandError) Error() string {
	return strings.TrimSpace(e.err.Error() + "\n" + strings.TrimSpace(e.output))
}

func (e commandError) Unwrap() error { return e.err }
