package hstest

import (
	"fmt"
	"net/http"
	"testing"
)

// DecodeNorm decodes an answer and applies Normalise; a body that is not
// JSON fails the test.
func DecodeNorm(t testing.TB, b []byte) any {
	t.Helper()
	v, err := Decode(b)
	if err != nil {
		t.Fatalf("decode %q: %v", FirstLine(b), err)
	}
	Normalise(v)
	return v
}

// AnswerDiff lists how sparkdx's answer (gotStatus, got) differs from the
// History Server's (wantStatus, want): its status, or, both 200, the
// normalised documents.
func AnswerDiff(t testing.TB, gotStatus int, got []byte, wantStatus int, want []byte) []string {
	t.Helper()
	switch {
	case gotStatus != wantStatus:
		return []string{fmt.Sprintf("status %d, History Server %d (%s)", gotStatus, wantStatus, FirstLine(got))}
	case wantStatus == http.StatusOK:
		return Diff(DecodeNorm(t, got), DecodeNorm(t, want))
	}
	return nil
}

// Unknown returns the diffs that KnownDifference does not explain for the
// Spark line version and path.
func Unknown(version, path string, diffs []string) []string {
	var out []string
	for _, d := range diffs {
		if KnownDifference(version, path, d) == "" {
			out = append(out, d)
		}
	}
	return out
}

// FirstN keeps the first n lines, saying how many more there were.
func FirstN(lines []string, n int) []string {
	if len(lines) > n {
		return append(lines[:n:n], fmt.Sprintf("... %d more", len(lines)-n))
	}
	return lines
}

// LiveAnswerDiff is AnswerDiff for two servers over the same log
// directory, as the differential test runs them against Spark 4: the
// attempts' log source is compared too, and each object's key order.
func LiveAnswerDiff(t testing.TB, gotStatus int, got []byte, wantStatus int, want []byte) []string {
	t.Helper()
	if gotStatus != wantStatus || wantStatus != http.StatusOK {
		return AnswerDiff(t, gotStatus, got, wantStatus, want)
	}
	decode := func(b []byte) any {
		v, err := Decode(b)
		if err != nil {
			t.Fatalf("decode %q: %v", FirstLine(b), err)
		}
		clearDynamic(v, false)
		return v
	}
	order, err := KeyOrder(got, want)
	if err != nil {
		t.Fatal(err)
	}
	return append(Diff(decode(got), decode(want)), order...)
}
