package readlimit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// The caps, in bytes, on the inputs macepc reads. Each is far above what
// a run writes: the caps are there to refuse what is not a file of the
// format, not to limit what a run can do.
const (
	// MaxJSONFile caps a JSON file of a results directory (profile.json,
	// search.json, divergence.json, …): profile.json, the largest, takes
	// about 130 bytes per execution, so 5 million executions fit.
	MaxJSONFile = 1 << 30
	// MaxJSONLine caps one line of a JSON Lines file
	// (search-executions.jsonl, divergence-walks.jsonl, executions.jsonl,
	// a shard file): a line is one execution with its event counts, a few
	// kilobytes; a shard's header line carries a path file.
	MaxJSONLine = 64 << 20
	// MaxEDDFile caps an EDD file (--edd, edd.json): 101 points per label
	// take about 1.2 KB, so 50,000 labels fit.
	MaxEDDFile = 64 << 20
	// MaxPathFile caps a path file (*.path.json): its segments and its
	// EDD.
	MaxPathFile = MaxEDDFile + 16<<20
	// MaxTextFile caps the text files the report shows (divergence.diff,
	// state.diff) and the images it embeds.
	MaxTextFile = 256 << 20
)

// ErrTooLarge is what a read past its cap fails with (errors.Is).
var ErrTooLarge = errors.New("readlimit: input too large")

// TooLargeError is the error of an input larger than its cap.
type TooLargeError struct {
	Max int64 // the cap, in bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("larger than %s, the most this kind of file can be", Size(e.Max))
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Size renders a number of bytes for an error message: "64 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// reader fails with a *TooLargeError once more than max bytes are read.
type reader struct {
	r    io.Reader
	left int64 // bytes that may still be read
	max  int64
}

// NewReader returns a reader of r that reads at most max bytes and fails
// with a *TooLargeError when r has more.
func NewReader(r io.Reader, max int64) io.Reader { return &reader{r: r, left: max, max: max} }

func (l *reader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, &TooLargeError{Max: l.max}
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1] // one byte past the cap tells that there is more
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), &TooLargeError{Max: l.max}
	}
	return n, err
}

// Open opens the file at path for reading at most max bytes: a regular
// file larger than max is refused at once; reading a pipe or a device
// fails past max. The error names path.
func Open(path string, max int64) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, &TooLargeError{Max: max})
	}
	return &file{f: f, r: NewReader(f, max), path: path}, nil
}

type file struct {
	f    *os.File
	r    io.Reader
	path string
}

func (f *file) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	var tl *TooLargeError
	if errors.As(err, &tl) {
		err = fmt.Errorf("%s: %w", f.path, err)
	}
	return n, err
}

func (f *file) Close() error { return f.f.Close() }

// ReadFile is os.ReadFile, capped at max bytes (Open).
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadJSONFile is ReadFile of a file that must hold a JSON object: it
// also fails as soon as the first character after white space is not
// '{', before reading on (a device's endless NUL bytes). The caller
// decodes what it returns.
func ReadJSONFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	if err := startsObject(br); err != nil {
		return nil, fmt.Errorf("%s is malformed: %w", path, err)
	}
	return io.ReadAll(br)
}

// startsObject checks that the first character of br after white space
// is '{' without consuming it; an empty input is no error (the decoder
// says what it lacks).
func startsObject(br *bufio.Reader) error {
	for {
		b, err := br.Peek(1)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.ReadByte()
			continue
		case '{':
			return nil
		}
		return fmt.Errorf("it starts with %q, not with a JSON object's '{'", b[0])
	}
}

// ReadLine reads one line of br, up to and including its '\n', of at
// most max bytes: a longer one fails with a *TooLargeError as soon as
// max bytes without a newline are read, without buffering more. At the
// end of the input it returns what is left (no newline) and io.EOF.
func ReadLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, &TooLargeError{Max: int64(max)}
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			if err == nil && line == nil {
				line = []byte{}
			}
			return line, err
		}
	}
}
