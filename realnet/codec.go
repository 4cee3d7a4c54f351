package realnet

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"reflect"

	"github.com/macepc/macepc/timedsim"
)

// MessageTyper is implemented by a Service that lists the concrete types
// of the messages its protocol sends: what one node per process needs to
// encode them (Codec). A value of each type is enough (Ping{}, &Join{});
// pointer and value types are distinct.
type MessageTyper interface {
	MessageTypes() []timedsim.Message
}

// Codec encodes messages of a fixed list of types for the wire: a type
// number (its position in the list, so every process must run the same
// binary and system) and the value's encoding/gob bytes. A struct without
// fields (Ping{}) is sent as its number alone.
type Codec struct {
	types []reflect.Type
	index map[reflect.Type]int
	empty []bool
}

// NewCodec checks that every type can cross the wire unchanged: gob
// drops unexported struct fields silently, so a type with one (at any
// depth, unless it implements gob.GobEncoder or encoding.BinaryMarshaler)
// is refused, by name. Nil values and duplicates are refused too.
func NewCodec(types []timedsim.Message) (*Codec, error) {
	if len(types) == 0 {
		return nil, errors.New("realnet: MessageTypes lists no message types")
	}
	c := &Codec{index: map[reflect.Type]int{}}
	for _, m := range types {
		if m == nil {
			return nil, errors.New("realnet: MessageTypes lists a nil message")
		}
		t := reflect.TypeOf(m)
		if _, dup := c.index[t]; dup {
			return nil, fmt.Errorf("realnet: MessageTypes lists %v twice", t)
		}
		if err := wireSafe(t, map[reflect.Type]bool{}); err != nil {
			return nil, fmt.Errorf("realnet: message type %v cannot be sent between processes: %w (export it, or implement gob.GobEncoder)", t, err)
		}
		e := t
		for e.Kind() == reflect.Pointer {
			e = e.Elem()
		}
		c.index[t] = len(c.types)
		c.types = append(c.types, t)
		c.empty = append(c.empty, e.Kind() == reflect.Struct && e.NumField() == 0)
	}
	return c, nil
}

// wireSafe reports the first unexported field reachable in t.
func wireSafe(t reflect.Type, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	if t.Implements(reflect.TypeFor[gob.GobEncoder]()) || t.Implements(reflect.TypeFor[encoding.BinaryMarshaler]()) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return wireSafe(t.Elem(), seen)
	case reflect.Map:
		if err := wireSafe(t.Key(), seen); err != nil {
			return err
		}
		return wireSafe(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("field %s of %v is unexported", f.Name, t)
			}
			if err := wireSafe(f.Type, seen); err != nil {
				return err
			}
		}
	case reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return fmt.Errorf("%v (a %v) has no wire form", t, t.Kind())
	}
	return nil
}

// Encode appends msg's encoding to b.
func (c *Codec) Encode(b []byte, msg timedsim.Message) ([]byte, error) {
	i, ok := c.index[reflect.TypeOf(msg)]
	if !ok {
		return nil, fmt.Errorf("realnet: message type %T is not among the service's MessageTypes", msg)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(i))
	if c.empty[i] {
		return b, nil
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(msg); err != nil {
		return nil, fmt.Errorf("realnet: encoding %T: %w", msg, err)
	}
	return append(b, buf.Bytes()...), nil
}

// Decode is Encode's inverse.
func (c *Codec) Decode(b []byte) (timedsim.Message, error) {
	if len(b) < 2 {
		return nil, errors.New("realnet: a message shorter than its type number")
	}
	i := int(binary.BigEndian.Uint16(b))
	if i >= len(c.types) {
		return nil, fmt.Errorf("realnet: message type number %d, the service lists %d (do all processes run the same binary and system?)", i, len(c.types))
	}
	t := c.types[i]
	v := reflect.New(t) // *T
	if !c.empty[i] {
		if err := gob.NewDecoder(bytes.NewReader(b[2:])).DecodeValue(v); err != nil {
			return nil, fmt.Errorf("realnet: decoding a %v: %w", t, err)
		}
	} else if t.Kind() == reflect.Pointer {
		v.Elem().Set(reflect.New(t.Elem()))
	}
	m, ok := v.Elem().Interface().(timedsim.Message)
	if !ok {
		return nil, fmt.Errorf("realnet: %v is not a timedsim.Message", t)
	}
	return m, nil
}
