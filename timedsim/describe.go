package timedsim

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/macepc/macepc/internal/visible"
)

// Describer is implemented by services that render their own state for
// event logs, state diffs and golden tests. The text must be a pure
// function of the state (no addresses, no map order).
type Describer interface {
	Describe() string
}

// NoteDone is the note with which a handler says that its node has
// accomplished its part of the task, such as a receiver that got the whole
// file while it goes on serving others: the per-node completion plot then
// shows the end of the first event so noted instead of the node's last
// event.
const NoteDone = "done: task complete"

// CompositeArrow separates an event label from the message type its
// handler sent in a composite label.
const CompositeArrow = " → "

// CompositeLabel is the composite label of an event and a message type its
// handler sent: CompositeLabel("deliver JoinReply", "Remove") is
// "deliver JoinReply → Remove" (MacePC Figure 4).
func CompositeLabel(label, sentType string) string { return label + CompositeArrow + sentType }

// SentNothing stands for the message type in the composite label of a
// handler that sent nothing, noted nothing (Context.Note) and set or
// cancelled no timer: "deliver
// JoinReply → (nothing)" counts the JoinReplies whose handler left no
// trace. A stale message dropped by a node that has moved on is the
// typical trace of a race (Chord's second ring, a duplicate answer), and
// it has no sent message of its own to count; a handler that says why it
// dropped it with a note is counted under its note instead. The
// parentheses keep it apart from every Go type name.
const SentNothing = "(nothing)"

// TimerComposite is the part after the arrow of the composite label of a
// handler that set or cancelled timer name: "(set tick)" or "(cancel
// tick)". A timer is an effect of a handler as a sent message is:
// "deliver Elected → (cancel tick)" counts the Elected messages that
// stopped a node's retry timer, and an Elected ignored while the node
// still collects counts as "deliver Elected → (nothing)", without a note
// saying so. Like SentNothing, the parentheses keep it apart from every Go
// type name, and CheckNote refuses notes of this form.
func TimerComposite(name string, cancel bool) string {
	if cancel {
		return "(cancel " + name + ")"
	}
	return "(set " + name + ")"
}

// IsTimerComposite reports whether text, the part of a composite label
// after the arrow, has the form of TimerComposite.
func IsTimerComposite(text string) bool {
	return strings.HasSuffix(text, ")") && (strings.HasPrefix(text, "(set ") || strings.HasPrefix(text, "(cancel "))
}

// MaxNoteLen is the longest note text, in bytes: a note is a label that
// tables and plots show, not a log line (Context.Logf is for details).
const MaxNoteLen = 80

// CheckNote says why text cannot be a note (Context.Note), or returns nil.
// A note is one line of at most MaxNoteLen bytes of valid UTF-8, without
// control or invisible formatting characters (a right-to-left override),
// surrounding spaces or the arrow "→" of composite labels, and it must not read as a message type: not SentNothing, and
// not a Go identifier ("dropped"; write "dropped: not joined"), which a
// message type of the same name would share a composite label with.
func CheckNote(text string) error {
	bad := func(why string) error { return fmt.Errorf("timedsim: note %q %s", text, why) }
	switch {
	case text == "":
		return fmt.Errorf("timedsim: empty note")
	case len(text) > MaxNoteLen:
		return bad(fmt.Sprintf("is longer than %d bytes: a note names a kind of event, details go to Logf", MaxNoteLen))
	case !utf8.ValidString(text):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(text, '→'):
		return bad("contains the composite labels' arrow →")
	case strings.TrimSpace(text) != text:
		return bad("has surrounding spaces")
	case text == SentNothing:
		return bad("is the composite label of a handler that sent nothing")
	case IsTimerComposite(text):
		return bad("reads as the composite label of a handler that set or cancelled a timer")
	case isIdent(text):
		return bad(`reads as a message type name: write a phrase ("dropped: not joined")`)
	}
	for _, r := range text {
		if unicode.IsControl(r) {
			return bad("has a control character (a note is one line)")
		}
	}
	if !visible.Is(text) {
		return bad(hiddenChar)
	}
	return nil
}

// hiddenChar says why a text with a character that would not show as
// itself (package internal/visible) is refused.
const hiddenChar = "has an invisible formatting character (such as a right-to-left override, which reverses the text after it on screen)"

// CheckMessageLabel says why name cannot be the label of a message
// (Labeler.MessageLabel), or returns nil. An empty name is fine (the type's
// name stands in). A label is one line of valid UTF-8, without control or
// invisible formatting characters, surrounding spaces, the arrow "→" of
// composite labels, or the text SentNothing: event logs, tables and plots
// show it as it is, one event per line, and a label of "Ping\nstep 5 …"
// would forge a line of the event log. A handler that sends a message
// with such a label panics, as it does for such a note.
func CheckMessageLabel(name string) error {
	if name == "" {
		return nil
	}
	return checkName("message label", name)
}

// CheckTimerName says why name cannot be a timer's name (Context.SetTimer),
// or returns nil: the rules of CheckMessageLabel, and it must not be
// empty. A handler that sets a timer with such a name panics.
func CheckTimerName(name string) error { return checkName("timer name", name) }

// checkName checks a name that becomes part of an event label (a message
// label, a timer name) as CheckMessageLabel says; what names it.
func checkName(what, name string) error {
	bad := func(why string) error { return fmt.Errorf("timedsim: %s %q %s", what, name, why) }
	switch {
	case name == "":
		return fmt.Errorf("timedsim: empty %s", what)
	case !utf8.ValidString(name):
		return bad("is not valid UTF-8")
	case strings.ContainsRune(name, '→'):
		return bad("contains the composite labels' arrow →")
	case strings.TrimSpace(name) != name:
		return bad("has surrounding spaces")
	case name == SentNothing:
		return bad("is the composite label of a handler that sent nothing")
	case IsTimerComposite(name):
		return bad("reads as the composite label of a handler that set or cancelled a timer")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return bad("has a control character (a label is one line)")
		}
	}
	if !visible.Is(name) {
		return bad(hiddenChar)
	}
	return nil
}

// isIdent reports whether s is a Go identifier.
func isIdent(s string) bool {
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// Describe renders a service's state canonically: its Describe method if
// it is a Describer, else its String method if it is a fmt.Stringer, else
// a reflection walk of its fields — struct fields in declaration order,
// map entries sorted by their rendered key, pointers followed (a pointer
// seen before on the way down renders as "<cycle>"). Fields tagged
// `macepc:"-"` are skipped, as MaceMC lets authors mark state that does
// not matter. The text's hidden characters are made visible (package
// internal/visible): a line break shows as "\n" and a right-to-left
// override as "\u202e", so that a state is one line that reads as it is.
func Describe(v any) string {
	switch d := v.(type) {
	case nil:
		return "nil"
	case Describer:
		return visible.String(d.Describe())
	case fmt.Stringer:
		return visible.String(d.String())
	}
	var b strings.Builder
	describe(&b, reflect.ValueOf(v), map[uintptr]bool{})
	return visible.String(b.String())
}

func describe(b *strings.Builder, v reflect.Value, seen map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Invalid:
		b.WriteString("nil")
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if seen[v.Pointer()] {
			b.WriteString("<cycle>")
			return
		}
		seen[v.Pointer()] = true
		describe(b, v.Elem(), seen)
		delete(seen, v.Pointer())
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		describe(b, v.Elem(), seen)
	case reflect.Struct:
		t := v.Type()
		b.WriteString(t.Name())
		b.WriteByte('{')
		first := true
		for i := 0; i < v.NumField(); i++ {
			f := t.Field(i)
			if f.Tag.Get("macepc") == "-" {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(f.Name)
			b.WriteByte(':')
			describe(b, v.Field(i), seen)
		}
		b.WriteByte('}')
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("map[]")
			return
		}
		type kv struct{ k, v string }
		var entries []kv
		ifaceKeys := v.Type().Key().Kind() == reflect.Interface
		it := v.MapRange()
		for it.Next() {
			var kb, vb strings.Builder
			k := it.Key()
			if ifaceKeys && !k.IsNil() { // 1 and int64(1) are different keys
				kb.WriteString(k.Elem().Type().String() + "(")
				describe(&kb, k, seen)
				kb.WriteByte(')')
			} else {
				describe(&kb, k, seen)
			}
			describe(&vb, it.Value(), seen)
			entries = append(entries, kv{kb.String(), vb.String()})
		}
		// Sort by key, then value: keys can render alike (NaN).
		sort.Slice(entries, func(i, j int) bool {
			if entries[i].k != entries[j].k {
				return entries[i].k < entries[j].k
			}
			return entries[i].v < entries[j].v
		})
		b.WriteString("map[")
		for i, e := range entries {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(e.k + ":" + e.v)
		}
		b.WriteByte(']')
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			describe(b, v.Index(i), seen)
		}
		b.WriteByte(']')
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			b.WriteString("nil")
		} else {
			b.WriteString("<" + v.Kind().String() + ">")
		}
	default:
		if s, ok := stringer(v); ok {
			b.WriteString(s.String())
			return
		}
		fmt.Fprint(b, reflectValue(v))
	}
}

// stringer returns a basic-kind value's String method, also for values of
// unexported fields (which reflection will not hand out as interfaces): a
// copy is made through a fresh value of the same type.
func stringer(v reflect.Value) (fmt.Stringer, bool) {
	if v.Type().Name() == "" || !v.Type().Implements(reflect.TypeFor[fmt.Stringer]()) {
		return nil, false
	}
	if v.CanInterface() {
		return v.Interface().(fmt.Stringer), true
	}
	c := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Bool:
		c.SetBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.SetInt(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.SetUint(v.Uint())
	case reflect.Float32, reflect.Float64:
		c.SetFloat(v.Float())
	default:
		return nil, false
	}
	return c.Interface().(fmt.Stringer), true
}

// reflectValue prints basic kinds, including unexported fields' values.
func reflectValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		return v.Complex()
	}
	return v.Kind().String()
}
