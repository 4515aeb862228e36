package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// process is one control-plane component started by the harness.
type process struct {
	Name    string
	Path    string
	Args    []string
	LogPath string

	cmd      *exec.Cmd
	pid      int
	start    uint64 // process start time in clock ticks since boot (/proc/PID/stat field 22)
	detached bool

	done    chan struct{}
	mu      sync.Mutex
	exitErr error
	exited  bool
}

// spawner starts child processes from one goroutine locked to its OS thread. Attached
// children get PR_SET_PDEATHSIG=SIGKILL, which the kernel delivers when the thread that forked
// them exits; keeping that thread alive until Stop means the children die exactly when the
// test process dies (including a `go test -timeout` panic or a SIGKILL), never earlier.
type spawner struct {
	reqs chan spawnReq
	quit chan struct{}
	once sync.Once
}

type spawnReq struct {
	cmd   *exec.Cmd
	reply chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq), quit: make(chan struct{})}
	started := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		// Never unlock: when this goroutine returns the thread exits with it, which is only
		// done after every child is gone.
		close(started)
		for {
			select {
			case r := <-s.reqs:
				r.reply <- r.cmd.Start()
			case <-s.quit:
				return
			}
		}
	}()
	<-started
	return s
}

func (s *spawner) start(cmd *exec.Cmd) error {
	reply := make(chan error, 1)
	select {
	case s.reqs <- spawnReq{cmd: cmd, reply: reply}:
	case <-s.quit:
		return errors.New("harness: cluster already stopped")
	}
	return <-reply
}

func (s *spawner) close() { s.once.Do(func() { close(s.quit) }) }

// startProcess starts path with args, output appended to logPath, in its own process group.
// Detached processes also get their own session and no parent-death signal, so they outlive
// the starting process (used by `localcluster up`).
func startProcess(sp *spawner, name, path string, args []string, logPath string, detached bool, env []string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening log for %s: %w", name, err)
	}
	defer func() { _ = logFile.Close() }() // the child keeps its own descriptor

	cmd := exec.Command(path, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.Stdin = nil
	cmd.Env = env
	if detached {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	}
	_, _ = fmt.Fprintf(logFile, "### %s: %s %s\n", time.Now().Format(time.RFC3339), path, strings.Join(args, " "))

	if sp != nil {
		err = sp.start(cmd)
	} else {
		err = cmd.Start()
	}
	if err != nil {
		return nil, fmt.Errorf("starting %s (%s): %w", name, path, err)
	}
	p := &process{
		Name: name, Path: path, Args: args, LogPath: logPath,
		cmd: cmd, pid: cmd.Process.Pid, detached: detached,
		done: make(chan struct{}),
	}
	p.start, _ = procStartTime(p.pid)
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exited = true
		p.exitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	return p, nil
}

// exitedErr reports whether the process has exited, and how.
func (p *process) exitedErr() (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exited, p.exitErr
}

// stopGroup sends SIGTERM to the process group, waits up to grace, then SIGKILLs the group.
func (p *process) stopGroup(grace time.Duration) {
	if exited, _ := p.exitedErr(); !exited {
		_ = syscall.Kill(-p.pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
	}
	// Kill whatever is left in the group, even if the leader is gone.
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
}

// procStartTime reads field 22 (starttime) of /proc/PID/stat: with the pid it identifies a
// process, so a recycled pid is never mistaken for a component.
func procStartTime(pid int) (uint64, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may contain spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3 (state); starttime is field 22.
	if len(fields) < 20 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return strconv.ParseUint(fields[19], 10, 64)
}

// sameProcess reports whether pid is still the process recorded with start time start.
func sameProcess(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	got, err := procStartTime(pid)
	if err != nil {
		return false
	}
	return start == 0 || got == start
}

// killRecorded stops a process recorded in a state file (no exec.Cmd to wait on): SIGTERM to
// its group, then SIGKILL after grace, and waits until the pid is gone.
func killRecorded(pid int, start uint64, grace time.Duration) error {
	if !sameProcess(pid, start) {
		// Gone already (or the pid was reused by something else: leave that alone).
		return nil
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !sameProcess(pid, start) || isZombie(pid) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	deadline = time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !sameProcess(pid, start) || isZombie(pid) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("process %d did not exit after SIGKILL", pid)
}

func isZombie(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}
