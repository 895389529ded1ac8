package casegen

import (
	"errors"
	"io"
	"slices"
	"testing"
)

// TestTakeAndEach: cases come 1..n in order, a negative count is an error, and the first
// error from next or use stops the loop there.
func TestTakeAndEach(t *testing.T) {
	got, err := Take(3, func(i int) (int, error) { return i * 10, nil })
	if err != nil || !slices.Equal(got, []int{10, 20, 30}) {
		t.Errorf("Take(3) = %v, %v", got, err)
	}
	if got, err := Take(0, func(i int) (int, error) { return i, nil }); err != nil || len(got) != 0 {
		t.Errorf("Take(0) = %v, %v", got, err)
	}
	if _, err := Take(-1, func(i int) (int, error) { return i, nil }); err == nil {
		t.Error("Take(-1) is not an error")
	}
	boom := errors.New("boom")
	var used []int
	err = Each(5, func(i int) (int, error) {
		if i == 4 {
			return 0, boom
		}
		return i, nil
	}, func(_ int, c int) error {
		used = append(used, c)
		return nil
	})
	if !errors.Is(err, boom) || !slices.Equal(used, []int{1, 2, 3}) {
		t.Errorf("Each stopped with %v after %v", err, used)
	}
}

func TestBytes(t *testing.T) {
	got, err := Bytes(func(w io.Writer) error {
		_, err := io.WriteString(w, "a\nb\n")
		return err
	})
	if err != nil || string(got) != "a\nb\n" {
		t.Errorf("Bytes = %q, %v", got, err)
	}
	if _, err := Bytes(func(w io.Writer) error { return errors.New("disk full") }); err == nil || err.Error() != "disk full" {
		t.Errorf("Bytes error %v, want disk full", err)
	}
}
