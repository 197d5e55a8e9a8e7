package rt

import (
	"sync"
	"sync/atomic"
)

// standbyCore is the core of the process's standby thread plus one, 0
// while none runs. Loops with Config.OffStandby read it once a tick.
var standbyCore atomic.Int64

// standbys counts the standby threads that run; the first one's core is
// the standby core until the last one stops.
var standbys struct {
	sync.Mutex
	n int
}

// claimStandbyCore records that a standby thread runs on cpu. The
// returned function undoes the claim.
func claimStandbyCore(cpu int) (release func()) {
	standbys.Lock()
	defer standbys.Unlock()
	standbys.n++
	if standbys.n == 1 {
		standbyCore.Store(int64(cpu) + 1)
	}
	return func() {
		standbys.Lock()
		defer standbys.Unlock()
		standbys.n--
		if standbys.n == 0 {
			standbyCore.Store(0)
		}
	}
}

// monitorPins counts the loops kept off the standby core; while there are
// any, the runtime's monitor runs on that core. The monitor wakes
// thousands of times a second while loop threads sleep in system calls,
// more with a standby's sleeps, and at MonitorPriority it preempts
// whatever runs on its core at each pass: beside a standby, which sleeps
// but for its wake-ups, it preempts nothing that computes, and the loops
// kept off that core never meet it.
var monitorPins struct {
	sync.Mutex
	n     int
	unpin func()
}

// pinMonitorTo adds a loop kept off core cpu, moving the monitor there for
// the first; unpinMonitor takes one away, giving the monitor back its
// cores after the last.
func (l *Loop) pinMonitorTo(cpu int) {
	monitorPins.Lock()
	defer monitorPins.Unlock()
	monitorPins.n++
	if monitorPins.n > 1 {
		return
	}
	unpin, err := pinMonitor(cpu)
	if err != nil {
		l.logf("rt: loop %s: the runtime's monitor left on every core (%v)", l.cfg.Name, err)
		unpin = func() {}
	}
	monitorPins.unpin = unpin
}

func unpinMonitor() {
	monitorPins.Lock()
	defer monitorPins.Unlock()
	monitorPins.n--
	if monitorPins.n == 0 {
		monitorPins.unpin()
		monitorPins.unpin = nil
	}
}

// offStandby keeps a loop's own thread off the core of the process's
// standby thread while one runs (Config.OffStandby), with the runtime's
// monitor on that core.
type offStandby struct {
	core    int64   // the standby core it keeps off, as standbyCore holds it
	allowed cpuMask // the cores the thread may run on, read at the first move
}

// keep moves the calling thread (the loop's own) off the standby core, or
// back onto every core it had once no standby runs, when that has changed
// since the last call: one atomic load when nothing has. moved reports a
// move off the standby core. An error (the thread may run on the standby's
// core only, say) is returned once, for the change that could not be made.
func (o *offStandby) keep(l *Loop) (moved bool, err error) {
	c := standbyCore.Load()
	if c == o.core {
		return false, nil
	}
	if o.core != 0 {
		unpinMonitor()
	}
	o.core = c
	if c != 0 {
		l.pinMonitorTo(int(c) - 1)
	}
	if err := keepOff(&o.allowed, int(c)-1); err != nil {
		return false, err
	}
	return c != 0, nil
}

// done gives up the monitor's place when the loop stops.
func (o *offStandby) done() {
	if o.core != 0 {
		unpinMonitor()
		o.core = 0
	}
}
