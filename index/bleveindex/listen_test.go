//go:build linux

package bleveindex

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/index"
)

// TestAResidentsSocketAtALongPath: an index directory whose socket path
// is too long for a socket address (107 bytes) is still listened on and
// reached, through a descriptor of the directory, and the socket is made
// readable and writable by its owner only.
func TestAResidentsSocketAtALongPath(t *testing.T) {
	dir := t.TempDir()
	for len(dir) < 120 {
		dir = filepath.Join(dir, "a-directory-with-a-long-name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := index.AskResident(dir, "", index.Request{Op: index.OpPing}); !errors.Is(err, index.ErrNoResident) {
		t.Fatalf("before listening: %v, want ErrNoResident", err)
	}
	l, stop, err := listenResident(dir)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, index.SocketFile)
	st, err := os.Lstat(sock)
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v, %v: want a socket of mode 0600 at %s", st, err, sock)
	}
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var req index.Request
		json.NewDecoder(c).Decode(&req)
		json.NewEncoder(c).Encode(index.Response{Protocol: index.Protocol, Resident: &index.Resident{PID: 42, Requests: len(req.Helper)}})
	}()
	resp, err := index.AskResident(dir, "helper", index.Request{Op: index.OpPing})
	if err != nil || resp.Resident == nil || resp.Resident.PID != 42 || resp.Resident.Requests != len("helper") {
		t.Fatalf("%+v, %v", resp.Resident, err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left behind: %v", err)
	}
	if !strings.HasPrefix(dir, os.TempDir()) || len(sock) <= 107 {
		t.Fatalf("the path is not long: %d bytes", len(sock))
	}
}
