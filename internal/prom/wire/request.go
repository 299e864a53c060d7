package wire

import "encoding/binary"

// Label matcher types (prompb.LabelMatcher_Type).
const (
	MatchEqual     = 0
	MatchNotEqual  = 1
	MatchRegexp    = 2
	MatchNotRegexp = 3
)

// Matcher is one label matcher of a remote-read query. A Regexp value is
// the bare (anchored by Prometheus) regular expression, not a quoted one.
type Matcher struct {
	Type        int
	Name, Value string
}

// Remote read's content types and version header.
const (
	// StreamedChunksType is the answer DecodeChunkedRead reads.
	StreamedChunksType = "application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse"
	// RemoteReadVersion goes in the X-Prometheus-Remote-Read-Version header.
	RemoteReadVersion = "0.1.0"
)

// Protobuf wire types.
const (
	wireVarint = 0
	wireI64    = 1
	wireBytes  = 2
	wireI32    = 5
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendBytesField(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b // proto3 default
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

// ReadRequest is the body of a remote-read request (POST /api/v1/read,
// Content-Encoding snappy) of one query per selector over [startMs,
// endMs] (both included) accepting only streamed XOR chunks: a protobuf
// ReadRequest in a snappy block. Prometheus answers the queries one after
// the other in the same stream.
func ReadRequest(startMs, endMs int64, selectors ...[]Matcher) []byte {
	return snappyLiteral(encodeReadRequest(startMs, endMs, selectors...))
}

// encodeReadRequest is the protobuf ReadRequest.
func encodeReadRequest(startMs, endMs int64, selectors ...[]Matcher) []byte {
	var req []byte
	for _, ms := range selectors {
		var q []byte
		q = appendVarintField(q, 1, uint64(startMs))
		q = appendVarintField(q, 2, uint64(endMs))
		for _, m := range ms {
			var mb []byte
			mb = appendVarintField(mb, 1, uint64(m.Type))
			mb = appendBytesField(mb, 2, []byte(m.Name))
			mb = appendBytesField(mb, 3, []byte(m.Value))
			q = appendBytesField(q, 3, mb)
		}
		req = appendBytesField(req, 1, q)
	}
	req = appendBytesField(req, 2, []byte{1}) // packed accepted_response_types: STREAMED_XOR_CHUNKS
	return req
}

// snappyLiteral is a valid snappy block holding b as literals only: the
// request is small and only Prometheus needs to read it.
func snappyLiteral(b []byte) []byte {
	out := binary.AppendUvarint(make([]byte, 0, len(b)+16), uint64(len(b)))
	for len(b) > 0 {
		n := min(len(b), 1<<16)
		if n <= 60 {
			out = append(out, byte(n-1)<<2)
		} else {
			out = append(out, 61<<2, byte(n-1), byte((n-1)>>8))
		}
		out = append(out, b[:n]...)
		b = b[n:]
	}
	return out
}
