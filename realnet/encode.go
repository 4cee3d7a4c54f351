package realnet

import (
	"encoding/json"
	"strconv"
)

// appendEvent appends e as encoding/json.Marshal renders it (the same
// bytes, which TestAppendEventIsMarshal checks), without reflection: it
// runs once per handler while recording.
func appendEvent(b []byte, e *Event) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	b = append(b, `,"lamport":`...)
	b = strconv.AppendUint(b, e.Lamport, 10)
	b = append(b, `,"kind":`...)
	b = appendString(b, e.Kind)
	b = append(b, `,"start_ns":`...)
	b = strconv.AppendInt(b, e.StartNS, 10)
	b = append(b, `,"dur_ns":`...)
	b = strconv.AppendInt(b, e.DurNS, 10)
	b = append(b, `,"now_ns":`...)
	b = strconv.AppendInt(b, e.NowNS, 10)
	b = append(b, `,"peer":`...)
	b = strconv.AppendInt(b, int64(e.Peer), 10)
	if e.Transport != "" {
		b = append(b, `,"transport":`...)
		b = appendString(b, e.Transport)
	}
	if e.Msg != 0 {
		b = append(b, `,"msg":`...)
		b = strconv.AppendUint(b, e.Msg, 10)
	}
	if e.SenderLamport != 0 {
		b = append(b, `,"sender_lamport":`...)
		b = strconv.AppendUint(b, e.SenderLamport, 10)
	}
	if e.SentNS != 0 {
		b = append(b, `,"sent_ns":`...)
		b = strconv.AppendInt(b, e.SentNS, 10)
	}
	if e.ArrivedNS != 0 {
		b = append(b, `,"arrived_ns":`...)
		b = strconv.AppendInt(b, e.ArrivedNS, 10)
	}
	if e.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, e.Name)
	}
	if e.App != 0 {
		b = append(b, `,"app":`...)
		b = strconv.AppendInt(b, int64(e.App), 10)
	}
	if e.Err != "" {
		b = append(b, `,"err":`...)
		b = appendString(b, e.Err)
	}
	if len(e.Draws) > 0 {
		b = append(b, `,"draws":[`...)
		for i, d := range e.Draws {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendUint(b, d, 10)
		}
		b = append(b, ']')
	}
	if len(e.Sends) > 0 {
		b = append(b, `,"sends":[`...)
		for i, s := range e.Sends {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"to":`...)
			b = strconv.AppendInt(b, int64(s.To), 10)
			b = append(b, `,"transport":`...)
			b = appendString(b, s.Transport)
			b = append(b, `,"id":`...)
			b = strconv.AppendUint(b, s.ID, 10)
			b = append(b, `,"label":`...)
			b = appendString(b, s.Label)
			if s.Err != "" {
				b = append(b, `,"err":`...)
				b = appendString(b, s.Err)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(e.Timers) > 0 {
		b = append(b, `,"timers":[`...)
		for i, op := range e.Timers {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			sep := false
			if op.Set != "" {
				b = append(b, `"set":`...)
				b = appendString(b, op.Set)
				sep = true
			}
			if op.AfterNS != 0 {
				if sep {
					b = append(b, ',')
				}
				b = append(b, `"after_ns":`...)
				b = strconv.AppendInt(b, op.AfterNS, 10)
				sep = true
			}
			if op.Cancel != "" {
				if sep {
					b = append(b, ',')
				}
				b = append(b, `"cancel":`...)
				b = appendString(b, op.Cancel)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // rare: escapes, HTML-safe runes, UTF-8
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
