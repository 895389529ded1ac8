package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ealscope/ealscope/engine"
)

// guardChildEnv carries the endpoint a child process calls in TestGuardChild.
const guardChildEnv = "EALSCOPE_GUARD_CHILD_URL"

// guardResult is what the child reports of its one attempt.
type guardResult struct {
	Error     string `json:"error"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

// TestGuardChild is not a test on its own: TestHostileEndpointIsBounded runs the test binary
// again with this test selected, so the peak RSS measured is that of a process doing nothing
// but the model call.
func TestGuardChild(t *testing.T) {
	url := os.Getenv(guardChildEnv)
	if url == "" {
		t.Skip("run by TestHostileEndpointIsBounded")
	}
	timeout, err := strconv.ParseFloat(os.Getenv("EALSCOPE_GUARD_CHILD_TIMEOUT"), 64)
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(url)
	m.TimeoutS = timeout
	start := time.Now()
	rec := NewModelClient(m, RetryPolicy{MaxAttempts: 1}, nil).Complete(context.Background(), ChatRequest{Messages: []engine.ChatMessage{{Role: "user", Content: "x"}}})
	out, _ := json.Marshal(guardResult{Error: deref(rec.Error), ElapsedMS: time.Since(start).Milliseconds()})
	fmt.Printf("GUARD %s\n", out)
}

// TestHostileEndpointIsBounded: an endpoint streaming 1 MiB chunks without a Content-Length
// (up to 1 GiB, answering 200 or 500) cannot push the calling process past 300 MiB, and
// the attempt ends as a provider error naming the limit; one trickling bytes forever is cut
// at timeout_s, and the attempt ends within timeout_s plus a second.
func TestHostileEndpointIsBounded(t *testing.T) {
	const chunk = 1 << 20
	flood := func(status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			buf := []byte(`{"choices": [{"message": {"content": "` + strings.Repeat("a", chunk))
			for i := 0; i < 1024; i++ {
				if _, err := w.Write(buf); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				buf = buf[len(buf)-chunk:]
			}
		}
	}
	trickle := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		for i := 0; i < 6000; i++ {
			if _, err := w.Write([]byte(`{"choices":[ `)); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	cases := []struct {
		name     string
		handler  http.HandlerFunc
		timeoutS float64
		want     string
	}{
		{"200 flood", flood(200), 20, fmt.Sprintf("ProviderError: response body exceeds %d bytes (8 MiB", MaxResponseBytes)},
		{"500 flood", flood(500), 20, "ProviderError: response body exceeds"},
		{"trickle", trickle, 1, "APITimeoutError: Request timed out after 1s."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.handler)
			defer srv.Close()
			cmd := exec.Command(os.Args[0], "-test.run=^TestGuardChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), guardChildEnv+"="+srv.URL, fmt.Sprintf("EALSCOPE_GUARD_CHILD_TIMEOUT=%g", c.timeoutS), "EALSCOPE_TEST_API_KEY="+testAPIKey)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			_, line, ok := strings.Cut(string(out), "GUARD ")
			var res guardResult
			if !ok || json.Unmarshal([]byte(strings.SplitN(line, "\n", 2)[0]), &res) != nil {
				t.Fatalf("child printed no result:\n%s", out)
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
			t.Logf("%s: peak RSS %d MiB, attempt %d ms: %s", c.name, peak>>20, res.ElapsedMS, res.Error)
			if peak > 300<<20 {
				t.Errorf("peak RSS %d MiB, above 300 MiB", peak>>20)
			}
			if limit := int64(c.timeoutS*1000) + 1000; res.ElapsedMS > limit {
				t.Errorf("attempt took %d ms, past timeout_s plus a second (%d ms)", res.ElapsedMS, limit)
			}
			if !strings.HasPrefix(res.Error, c.want) {
				t.Errorf("error %q, want it to start with %q", res.Error, c.want)
			}
		})
	}
}

// TestRedirectsAreNotFollowed: a model endpoint answering any redirect, to another port of
// the same host or to another host name, is a provider error naming the target, and the
// target never receives a request (so neither the Authorization header nor the prompt goes
// anywhere unconfigured), whether the client is ealscope's own or one handed in.
func TestRedirectsAreNotFollowed(t *testing.T) {
	t.Setenv("EALSCOPE_TEST_API_KEY", testAPIKey)
	var mu sync.Mutex
	var leaked []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		leaked = append(leaked, r.Method+" "+r.URL.Path+" auth="+r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprint(w, `{"model": "m", "choices": [{"message": {"content": "stolen"}, "finish_reason": "stop"}]}`)
	}))
	defer target.Close()
	port := target.URL[strings.LastIndex(target.URL, ":")+1:]
	for _, code := range []int{301, 302, 303, 307, 308} {
		for _, to := range []string{target.URL + "/v1/chat/completions", "http://localhost:" + port + "/v1/chat/completions", "http://user:pw@127.0.0.1:" + port + "/x"} {
			for _, own := range []bool{true, false} {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, to, code)
				}))
				var hc *http.Client
				if !own {
					hc = &http.Client{}
				}
				rec := NewModelClient(testModel(srv.URL), fastRetry, hc).Complete(context.Background(), ChatRequest{Messages: []engine.ChatMessage{{Role: "user", Content: "x"}}})
				srv.Close()
				want := fmt.Sprintf("ProviderError: the endpoint answered %d %s, redirecting to ", code, http.StatusText(code))
				if rec.Error == nil || !strings.HasPrefix(*rec.Error, want) || !strings.Contains(*rec.Error, "do not follow redirects") || rec.Attempts != 1 {
					t.Errorf("%d to %s: error %q after %d attempts", code, to, deref(rec.Error), rec.Attempts)
				}
				if rec.Error != nil && strings.Contains(*rec.Error, "user:pw") {
					t.Errorf("%d to %s: the error quotes the target's credentials: %s", code, to, *rec.Error)
				}
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(leaked) > 0 {
		t.Errorf("the redirect target received %d requests: %v", len(leaked), leaked)
	}
}
