package bleveindex

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// A trace (ServeOptions.Trace; lore-index takes it from LORE_TRACE) is a
// line appended to a file at each phase of lore-index's work (time since
// it started serving, memory allocated so far, collections), also after it
// has let lore go: what to look at first when a search is slow. Reading
// the memory statistics stops the world for a moment, so the trace itself
// costs a little.
var (
	traceFile  string
	traceStart time.Time
)

// startTrace sends the trace to file ("" for none).
func startTrace(file string) {
	traceFile, traceStart = file, time.Now()
}

func trace(format string, args ...any) {
	if traceFile == "" {
		return
	}
	f, err := os.OpenFile(traceFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(f, "lore-index %d %7.1f ms %6.1f MB allocated %2d GCs  %s\n", os.Getpid(),
		float64(time.Since(traceStart).Microseconds())/1000, float64(ms.TotalAlloc)/1e6, ms.NumGC, fmt.Sprintf(format, args...))
}

// traceWriter is where Serve sends the standard logger, through which
// bleve and scorch say what they met ("unable to load snapshot, …,
// continuing"): to the trace when there is one, else nowhere. None of it
// is for the person at lore's terminal, and lore does not rely on it: a
// generation is checked against its seal.
type traceWriter struct{}

func (traceWriter) Write(p []byte) (int, error) {
	trace("bleve: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}
