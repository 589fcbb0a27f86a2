package storewatch

import (
	"errors"
	"syscall"
	"unsafe"
)

// Notify hears of changes in a set of directories from the kernel
// (inotify), so that a process that stays up between looks — a resident
// lore-index — need not stamp every file of a small store to catch one
// rewritten in place. It stands in for that sweep only: the stamps of the
// directories are still compared at every look.
//
// The kernel queues an event while the write that causes it runs, so a
// change made before the caller's look began is in the queue when Changed
// drains it. What Notify cannot hear: a file changed through a shared
// mapping, and on a network file system a change made on another
// machine. A resident lore-index is opt-in for that reason, as git's
// fsmonitor is.
type Notify struct {
	fd      int
	watched map[string]int32 // directory → watch descriptor
	byWatch map[int32]string
	buf     []byte
}

// notifyMask is what a watched directory reports: any change to a file in
// it or to its list of names, and its own removal or move.
const notifyMask = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE |
	syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR | syscall.IN_DONT_FOLLOW

// NewNotify starts listening; nothing is watched yet (Watch).
func NewNotify() (*Notify, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &Notify{fd: fd, watched: map[string]int32{}, byWatch: map[int32]string{}, buf: make([]byte, 64<<10)}, nil
}

// Watch watches each of dirs (absolute paths) not watched yet. added says
// whether one was: what changed in it before its watch was set went
// unheard, so the caller looks at everything once more. A directory that
// cannot be watched (gone, a link, the kernel's limit on watches) is an
// error: the caller cannot rely on Notify until Watch succeeds.
func (n *Notify) Watch(dirs []string) (added bool, err error) {
	for _, d := range dirs {
		if _, ok := n.watched[d]; ok {
			continue
		}
		wd, werr := syscall.InotifyAddWatch(n.fd, d, notifyMask)
		if werr != nil {
			err = errors.Join(err, &pathError{d, werr})
			continue
		}
		if old, ok := n.byWatch[int32(wd)]; ok {
			// The same directory under another name (a move): one path
			// per watch, so a rename is seen for what it is.
			delete(n.watched, old)
		}
		n.watched[d], n.byWatch[int32(wd)] = int32(wd), d
		added = true
	}
	return added, err
}

type pathError struct {
	path string
	err  error
}

func (e *pathError) Error() string { return "watching " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }

// Changed drains the events heard since it was last called and says
// whether there was any, or whether some may have been lost (the
// kernel's queue overflowed, or reading it failed). A watched directory
// that was removed or moved is watched no more: the next Watch of its
// path adds it again.
func (n *Notify) Changed() bool {
	changed := false
	for {
		k, err := syscall.Read(n.fd, n.buf)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN || k == 0 {
			return changed
		}
		if err != nil || k < 0 {
			return true
		}
		changed = true
		for off := 0; off+syscall.SizeofInotifyEvent <= k; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&n.buf[off]))
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&(syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_IGNORED) != 0 {
				n.forget(ev.Wd, ev.Mask&syscall.IN_IGNORED == 0)
			}
		}
	}
}

// forget drops watch wd; remove takes it off the kernel's list too (a
// moved directory is still watched there, under its new name).
func (n *Notify) forget(wd int32, remove bool) {
	d, ok := n.byWatch[wd]
	if !ok {
		return
	}
	if remove {
		syscall.InotifyRmWatch(n.fd, uint32(wd))
	}
	delete(n.byWatch, wd)
	if n.watched[d] == wd {
		delete(n.watched, d)
	}
}

// LocalFS says whether the file system holding path is one whose changes
// inotify hears of, all of them: a local one (ext4, xfs, btrfs, tmpfs,
// overlayfs, zfs, f2fs, bcachefs). On a network or FUSE file system
// (NFS, SMB, 9p, a virtual machine's shared folder) a change made
// elsewhere raises no event, and on one not listed here lore does not
// know, so a caller stamps every file there as it would without Notify.
func LocalFS(path string) bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0xEF53, // ext2, ext3, ext4
		0x58465342, // xfs
		0x9123683E, // btrfs
		0x01021994, // tmpfs
		0x858458F6, // ramfs
		0x794C7630, // overlayfs
		0x2FC12FC1, // zfs
		0xF2F52010, // f2fs
		0xCA451A4E: // bcachefs
		return true
	}
	return false
}

// Close stops listening.
func (n *Notify) Close() error { return syscall.Close(n.fd) }
