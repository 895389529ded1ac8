package replay

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/ealscope/ealscope/engine/safetext"
)

// MaxResponseBytes bounds one model reply's body, success or error. A chat completion of
// max_tokens 4096 is a few tens of KiB; a body past this limit is a hostile or broken
// endpoint, and reading it whole would let the endpoint choose ealscope's memory
// (docs/RELIABILITY.md, "Model endpoints").
const MaxResponseBytes = 8 << 20

// maxRedirectTarget bounds the Location quoted in a redirect error.
const maxRedirectTarget = 200

// providerFault is an attempt ended by ealscope's own guard on a hostile reply: recorded
// as its message, and never retried (the same endpoint would answer the same way).
type providerFault struct{ msg string }

func (e providerFault) Error() string { return e.msg }

func bodyTooLarge() error {
	return providerFault{fmt.Sprintf("ProviderError: response body exceeds %d bytes (%d MiB, ealscope's limit for one model reply); the attempt was ended",
		MaxResponseBytes, MaxResponseBytes>>20)}
}

// readCapped reads at most limit bytes of body; one byte more is the limit error.
func readCapped(body io.Reader, limit int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, bodyTooLarge()
	}
	return raw, nil
}

// withoutRedirects is the client model calls use: a copy of c that never follows a
// redirect. Following one would post the prompt, and the Authorization header, to an
// address nobody configured (Go forwards the header to another port of the same host, and
// a 302 would turn the call into a GET that still carries it).
func withoutRedirects(c *http.Client) *http.Client {
	cp := *c
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// redirectFault is the error of a 3xx answer, naming where the endpoint pointed (without
// any credentials the target carries).
func redirectFault(resp *http.Response, key string) error {
	target := resp.Header.Get("Location")
	if u, err := url.Parse(target); err == nil && u.User != nil {
		u.User = nil
		target = u.String() + " (credentials in the address removed)"
	}
	target = safetext.Text(RedactSecrets(target, key))
	if len(target) > maxRedirectTarget {
		cut := maxRedirectTarget
		for cut > 0 && !utf8.RuneStart(target[cut]) {
			cut--
		}
		target = target[:cut] + "…"
	}
	if target == "" {
		target = "(no Location)"
	}
	return providerFault{fmt.Sprintf("ProviderError: the endpoint answered %d %s, redirecting to %s; model calls do not follow redirects (set base_url to the final address)",
		resp.StatusCode, http.StatusText(resp.StatusCode), target)}
}

func isRedirect(code int) bool { return code >= 300 && code < 400 }

// asProviderFault reports whether err is a guard's refusal, and its message.
func asProviderFault(err error) (string, bool) {
	var pf providerFault
	if errors.As(err, &pf) {
		return pf.msg, true
	}
	return "", false
}
