package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StateFile is the name of the file in a cluster's Dir that records its processes.
const StateFile = "state.json"

// State is what a running cluster records in Dir/state.json, so that another process
// (`localcluster down`) can stop it.
type State struct {
	KubernetesVersion string         `json:"kubernetesVersion"`
	Dir               string         `json:"dir"`
	LogDir            string         `json:"logDir"`
	BinDir            string         `json:"binDir"`
	Server            string         `json:"server,omitempty"`
	Kubeconfig        string         `json:"kubeconfig,omitempty"`
	ViewerKubeconfig  string         `json:"viewerKubeconfig,omitempty"`
	Processes         []ProcessState `json:"processes"`
}

// ProcessState identifies one component process: its pid, which is also its process group id,
// and its start time, so that a recycled pid is never signalled.
type ProcessState struct {
	Name      string `json:"name"`
	Pid       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
	Log       string `json:"log"`
}

func (c *Cluster) writeState() error {
	c.mu.Lock()
	st := State{
		KubernetesVersion: KubernetesVersion,
		Dir:               c.Dir,
		LogDir:            c.LogDir,
		BinDir:            c.BinDir,
		Server:            c.Server,
		Kubeconfig:        c.Kubeconfig,
		ViewerKubeconfig:  c.ViewerKubeconfig,
	}
	for _, p := range c.procs {
		st.Processes = append(st.Processes, ProcessState{Name: p.Name, Pid: p.pid, StartTime: p.start, Log: p.LogPath})
	}
	c.mu.Unlock()
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(c.Dir, StateFile+".tmp")
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(c.Dir, StateFile))
}

// ReadState reads dir/state.json.
func ReadState(dir string) (*State, error) {
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if err != nil {
		return nil, err
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(dir, StateFile), err)
	}
	return &st, nil
}

// Down stops the cluster recorded in dir/state.json: every recorded process group gets SIGTERM
// and, after grace, SIGKILL (clients first, etcd last); then everything in dir except the log
// directory is removed. A dir without a state file is not an error: there is nothing to stop.
func Down(dir string, grace time.Duration) error {
	st, err := ReadState(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	// Reverse start order: kwok, scheduler, controller manager, API server, etcd.
	for i := len(st.Processes) - 1; i >= 0; i-- {
		p := st.Processes[i]
		if err := killRecorded(p.Pid, p.StartTime, grace); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.Name, err))
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return removeContents(dir, topEntryInside(st.Dir, st.LogDir))
}

// Alive reports whether any process recorded in the state is still running.
func (st *State) Alive() bool {
	for _, p := range st.Processes {
		if sameProcess(p.Pid, p.StartTime) && !isZombie(p.Pid) {
			return true
		}
	}
	return false
}

// ProcessStartTime returns the start time of pid (clock ticks since boot), which together with
// the pid identifies a process; ProcessAlive checks such a pair.
func ProcessStartTime(pid int) (uint64, error) { return procStartTime(pid) }

// ProcessAlive reports whether pid is still the process that started at start.
func ProcessAlive(pid int, start uint64) bool { return sameProcess(pid, start) && !isZombie(pid) }

// removeStaleTempDirs removes the temporary directories of clusters whose processes are all
// gone (their test process was killed before it could clean up). Directories without a state
// file are only removed once they are an hour old, as a cluster may be starting in them.
func removeStaleTempDirs(except string) {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), tempDirPrefix+"*"))
	for _, dir := range matches {
		if dir == except || !strings.HasPrefix(filepath.Base(dir), tempDirPrefix) {
			continue
		}
		st, err := ReadState(dir)
		switch {
		case err == nil:
			if st.Alive() {
				continue
			}
		case errors.Is(err, os.ErrNotExist):
			info, serr := os.Stat(dir)
			if serr != nil || time.Since(info.ModTime()) < time.Hour {
				continue
			}
		default:
			continue
		}
		_ = os.RemoveAll(dir)
	}
}
