package bleveindex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/fsx"
	"lore/internal/storewatch"
)

// Watch is a resident lore-index's ear on the store's directories: it
// stands in for the stamp of every file of a small store (fresh.Every)
// while the kernel tells of no change in them (storewatch.Notify). The
// directories' own stamps are still compared at every search, as for a
// large store. A change heard is forgotten only once a search's check
// and update that began after it succeeded.
type Watch struct {
	n *storewatch.Notify // nil: no inotify here, every file is stamped
	// heard: a change was heard, or a directory newly watched, since the
	// last search that succeeded; asked: this search asked quiet.
	heard, asked bool
}

// quiet watches dirs (relative to root) and says whether nothing changed
// in them since the last search that succeeded. A nil Watch never is.
func (w *Watch) quiet(root string, dirs []string) bool {
	if w == nil || w.n == nil {
		return false
	}
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		abs[i] = filepath.Join(root, filepath.FromSlash(d))
	}
	added, err := w.n.Watch(abs)
	if w.n.Changed() || added || err != nil {
		w.heard = true
	}
	w.asked = true
	trace("watched: %d directories, changes heard: %v", len(dirs), w.heard)
	return !w.heard
}

// done ends a search: when it succeeded, what was heard before it asked
// quiet is in the index.
func (w *Watch) done(ok bool) {
	if w == nil {
		return
	}
	if ok && w.asked {
		w.heard = false
	}
	w.asked = false
}

// ResidentOptions are what the process running Resident decides.
type ResidentOptions struct {
	// Exe is the resident's executable: a request of a lore that would
	// run another one is declined, and the resident goes once the file
	// at Exe is replaced (lore-index installed again).
	Exe string
	// Idle is how long it waits for a request before it goes
	// (index.ResidentIdle when 0).
	Idle time.Duration
	// Ticks, when set, replaces the ticker at which the resident looks
	// whether to go, and Now the clock (tests).
	Ticks <-chan time.Time
	Now   func() time.Time
	// Listening, when set, hears that the resident listens; Served that
	// it finished with a request; Finishing that it answered a search
	// early and goes on with the update (tests).
	Listening, Served, Finishing func()
}

// residentTick is how often a resident looks whether to go.
const residentTick = 30 * time.Second

// Resident makes this process the resident lore-index of the store that
// store names (its Root, Dir, GitIndex and Prefix): it listens on the
// index directory's socket (listenResident) and answers one
// request at a time — searches as lore-index run for one would, with a
// Watch; OpPing and OpStop — declining what it does not take (another
// store, another build of lore-index, another request while it works).
// It returns when idle for opts.Idle, when its socket is no longer there
// (the index directory removed), when its executable was replaced, when
// stopped, or after a panic; and at once, with no error, when another
// resident holds the store's resident lock.
func Resident(store index.Request, opts ResidentOptions) error {
	if store.Root == "" || store.Dir == "" {
		return errors.New("a resident lore-index needs the store's root and index directory")
	}
	if opts.Idle <= 0 {
		opts.Idle = index.ResidentIdle
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Ticks == nil {
		t := time.NewTicker(residentTick)
		defer t.Stop()
		opts.Ticks = t.C
	}
	exe, err := os.Stat(opts.Exe)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(store.Dir, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(store.Dir, index.ResidentLockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if ok, err := fsx.TryLock(lock, true); err != nil || !ok {
		lock.Close()
		return err // another resident serves the store
	}
	// Holding the lock, a socket there is a dead resident's.
	sock := filepath.Join(store.Dir, index.SocketFile)
	os.Remove(sock)
	failed := filepath.Join(store.Dir, index.ResidentErrorFile)
	l, stopListening, err := listenResident(store.Dir)
	if err != nil {
		// Said for lore index status, and lore starts no other one.
		fsx.WriteFile(failed, []byte(err.Error()+"\n"), fsx.SyncAll)
		lock.Close()
		return err
	}
	os.Remove(failed)
	var once sync.Once
	// shutdown stops listening (removing the socket) and lets go of the
	// lock: once, before an answer to OpStop, so that whoever asked finds
	// the resident gone.
	shutdown := func() {
		once.Do(func() {
			stopListening()
			lock.Close()
		})
	}
	defer shutdown()
	listening, err := fsx.Lstat(sock)
	if err != nil {
		return err
	}
	// A resident lives long: garbage is collected at the usual pace, not
	// at the pace of a process that lives for one request.
	debug.SetGCPercent(100)
	r := &resident{store: store, exe: exe, opts: opts, watch: &Watch{}, shutdown: shutdown,
		info: index.Resident{PID: os.Getpid(), Started: opts.Now()}}
	// Only where the kernel hears of every change: elsewhere every file
	// of a small store is stamped before each search, as without one.
	if storewatch.LocalFS(store.Root) {
		if n, err := storewatch.NewNotify(); err == nil {
			r.watch.n = n
			r.info.Watching = true
			defer n.Close()
		}
	}
	// Requests are answered in turn; one that comes while the resident
	// finishes an update after answering (Index.SearchThen) is declined
	// rather than kept waiting: lore-index run for it waits for the
	// update as long as it must, and no longer.
	conns, done := make(chan net.Conn), make(chan struct{})
	defer close(done)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return // stopListening
			}
			if r.finishing.Load() {
				go decline(c, "the resident lore-index is finishing an update")
				continue
			}
			select {
			case conns <- c:
			case <-done:
				decline(c, "the resident lore-index is going")
				return
			}
		}
	}()
	trace("resident: listening")
	if opts.Listening != nil {
		opts.Listening()
	}
	last := opts.Now()
	for {
		select {
		case c := <-conns:
			stop := r.handle(c)
			last = opts.Now()
			if opts.Served != nil {
				opts.Served()
			}
			if stop {
				return nil
			}
		case <-opts.Ticks:
			switch {
			case !fresh.SameFile(sock, listening):
				trace("resident: its socket is gone")
				return nil
			case r.replaced():
				trace("resident: its executable was replaced")
				return nil
			case opts.Now().Sub(last) >= opts.Idle:
				trace("resident: idle")
				return nil
			}
		}
	}
}

// resident is Resident's state between requests.
type resident struct {
	store index.Request
	exe   os.FileInfo
	opts  ResidentOptions
	watch *Watch
	info  index.Resident
	// finishing is set while a search goes on after its answer.
	finishing atomic.Bool
	shutdown  func()
}

// replaced says whether the resident's executable is no longer the file
// it was started from.
func (r *resident) replaced() bool {
	st, err := os.Stat(r.opts.Exe)
	return err != nil || !sameExecutable(st, r.exe)
}

func sameExecutable(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
}

// handle answers the request on c and says whether the resident goes.
func (r *resident) handle(c net.Conn) (stop bool) {
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second)) // net's deadlines are the wall clock's
	var req index.Request
	if err := json.NewDecoder(c).Decode(&req); err != nil {
		return false
	}
	c.SetReadDeadline(time.Time{})
	replied := false
	reply := func(resp index.Response) {
		replied = true
		resp.Protocol = index.Protocol
		c.SetWriteDeadline(time.Now().Add(5 * time.Second))
		json.NewEncoder(c).Encode(resp)
		c.Close() // lore has its answer, whatever the resident does next
	}
	declined := func(why string) { reply(index.Response{Error: index.Declined + why}) }
	switch {
	case req.Protocol != index.Protocol:
		declined(fmt.Sprintf("lore speaks protocol %d, the resident lore-index %d", req.Protocol, index.Protocol))
		return false
	case req.Op == index.OpPing || req.Op == index.OpStop:
		// Whoever reached the socket: it is in the store's index directory.
		if req.Op == index.OpStop {
			r.shutdown()
		}
		info := r.info
		reply(index.Response{Resident: &info})
		return req.Op == index.OpStop
	case req.Op != index.OpSearch:
		declined("the resident lore-index answers searches only")
		return false
	case req.Root != r.store.Root || req.Dir != r.store.Dir || req.GitIndex != r.store.GitIndex || req.Prefix != r.store.Prefix:
		declined("the resident lore-index serves another store")
		return false
	case r.replaced():
		declined("the resident lore-index was installed again")
		return true
	case req.Helper != "" && !r.runs(req.Helper):
		declined("lore runs another lore-index than the resident one")
		return false
	}
	r.info.Requests++
	defer r.finishing.Store(false)
	resp, err := serveRecovered(req, io.Discard, r.watch, func(early index.Response) {
		r.finishing.Store(true)
		reply(early)
		if r.opts.Finishing != nil {
			r.opts.Finishing()
		}
	})
	if !replied {
		reply(resp)
	}
	r.watch.done(err == nil)
	trace("resident: answered")
	return errors.Is(err, errPanicked)
}

// runs says whether helper is the resident's executable.
func (r *resident) runs(helper string) bool {
	st, err := os.Stat(helper)
	return err == nil && sameExecutable(st, r.exe)
}

// decline tells the lore on c to run lore-index itself.
func decline(c net.Conn, why string) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	json.NewDecoder(c).Decode(new(index.Request))
	json.NewEncoder(c).Encode(index.Response{Protocol: index.Protocol, Error: index.Declined + why})
}
