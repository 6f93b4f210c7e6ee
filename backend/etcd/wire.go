package etcd

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The protocol buffer encoding of the few etcd messages guard sends and reads
// (etcd's api/v3/etcdserverpb/rpc.proto and mvccpb/kv.proto give the field numbers).
// Only what guard uses is encoded; fields it does not know are skipped when reading.

// appendVarint appends v as a base-128 varint.
func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// appendInt appends field num as a varint, left out when zero as proto3 does.
func appendInt(b []byte, num int, v int64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(appendVarint(b, uint64(num)<<3), uint64(v))
}

// appendBool appends field num when true.
func appendBool(b []byte, num int, v bool) []byte {
	if !v {
		return b
	}
	return appendInt(b, num, 1)
}

// appendBytes appends field num as length-delimited bytes (left out when empty,
// unless keep: a key must be sent even when empty).
func appendBytes(b []byte, num int, v []byte, keep bool) []byte {
	if len(v) == 0 && !keep {
		return b
	}
	b = appendVarint(b, uint64(num)<<3|2)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

var errWire = errors.New("malformed message")

// eachField calls fn with each field of msg: its number, and its varint value or its
// bytes (fixed-width fields are skipped).
func eachField(msg []byte, fn func(num int, v uint64, b []byte) error) error {
	for len(msg) > 0 {
		tag, n := binary.Uvarint(msg)
		if n <= 0 {
			return errWire
		}
		msg = msg[n:]
		num := int(tag >> 3)
		switch tag & 7 {
		case 0:
			v, n := binary.Uvarint(msg)
			if n <= 0 {
				return errWire
			}
			msg = msg[n:]
			if err := fn(num, v, nil); err != nil {
				return err
			}
		case 1:
			if len(msg) < 8 {
				return errWire
			}
			msg = msg[8:]
		case 2:
			l, n := binary.Uvarint(msg)
			if n <= 0 || l > uint64(len(msg)-n) {
				return errWire
			}
			b := msg[n : n+int(l)]
			msg = msg[n+int(l):]
			if err := fn(num, 0, b); err != nil {
				return err
			}
		case 5:
			if len(msg) < 4 {
				return errWire
			}
			msg = msg[4:]
		default:
			return fmt.Errorf("%w: wire type %d", errWire, tag&7)
		}
	}
	return nil
}

// header is a response's header: the revision it was served at.
type header struct{ Revision int64 }

func decodeHeader(b []byte) (header, error) {
	var h header
	err := eachField(b, func(num int, v uint64, _ []byte) error {
		if num == 3 {
			h.Revision = int64(v)
		}
		return nil
	})
	return h, err
}

// keyValue is mvccpb.KeyValue.
type keyValue struct {
	Key, Value                  []byte
	CreateRevision, ModRevision int64
	Lease                       int64
}

func decodeKeyValue(b []byte) (keyValue, error) {
	var kv keyValue
	err := eachField(b, func(num int, v uint64, b []byte) error {
		switch num {
		case 1:
			kv.Key = b
		case 2:
			kv.CreateRevision = int64(v)
		case 3:
			kv.ModRevision = int64(v)
		case 5:
			kv.Value = b
		case 6:
			kv.Lease = int64(v)
		}
		return nil
	})
	return kv, err
}

// rangeRequest is RangeRequest (key 1, range_end 2).
func rangeRequest(key, end []byte) []byte {
	return appendBytes(appendBytes(nil, 1, key, true), 2, end, false)
}

type rangeResponse struct {
	Header header
	Kvs    []keyValue
}

func decodeRangeResponse(b []byte) (*rangeResponse, error) {
	r := &rangeResponse{}
	err := eachField(b, func(num int, _ uint64, b []byte) error {
		var err error
		switch num {
		case 1:
			r.Header, err = decodeHeader(b)
		case 2:
			var kv keyValue
			kv, err = decodeKeyValue(b)
			r.Kvs = append(r.Kvs, kv)
		}
		return err
	})
	return r, err
}

// Compare's result and target (rpc.proto).
const (
	cmpEqual = 0
	cmpLess  = 2

	targetCreate = 1
	targetMod    = 2
)

// compare is Compare: result 1, target 2, key 3, create_revision 5, mod_revision 6,
// range_end 64.
type compare struct {
	Result, Target int
	Key, RangeEnd  []byte
	Revision       int64 // the create or mod revision, by Target
}

func (c compare) encode() []byte {
	b := appendInt(nil, 1, int64(c.Result))
	b = appendInt(b, 2, int64(c.Target))
	b = appendBytes(b, 3, c.Key, true)
	// The revision is the oneof target_union: sent even when 0 ("does not exist").
	field := 6
	if c.Target == targetCreate {
		field = 5
	}
	b = appendVarint(appendVarint(b, uint64(field)<<3), uint64(c.Revision))
	return appendBytes(b, 64, c.RangeEnd, false)
}

// putRequest is PutRequest: key 1, value 2, lease 3, ignore_lease 6.
type putRequest struct {
	Key, Value  []byte
	Lease       int64
	IgnoreLease bool
}

// deleteRequest is DeleteRangeRequest (key 1).
type deleteRequest struct{ Key []byte }

// requestOp is RequestOp: request_put 2, request_delete_range 3.
type requestOp struct {
	Put    *putRequest
	Delete *deleteRequest
}

func (op requestOp) encode() []byte {
	switch {
	case op.Put != nil:
		p := appendBytes(nil, 1, op.Put.Key, true)
		p = appendBytes(p, 2, op.Put.Value, false)
		p = appendInt(p, 3, op.Put.Lease)
		p = appendBool(p, 6, op.Put.IgnoreLease)
		return appendBytes(nil, 2, p, true)
	case op.Delete != nil:
		return appendBytes(nil, 3, appendBytes(nil, 1, op.Delete.Key, true), true)
	}
	return nil
}

// txnRequest is TxnRequest: compare 1, success 2.
func txnRequest(cmps []compare, ops []requestOp) []byte {
	var b []byte
	for _, c := range cmps {
		b = appendBytes(b, 1, c.encode(), true)
	}
	for _, op := range ops {
		b = appendBytes(b, 2, op.encode(), true)
	}
	return b
}

type txnResponse struct {
	Header    header
	Succeeded bool
}

func decodeTxnResponse(b []byte) (*txnResponse, error) {
	r := &txnResponse{}
	err := eachField(b, func(num int, v uint64, b []byte) error {
		var err error
		switch num {
		case 1:
			r.Header, err = decodeHeader(b)
		case 2:
			r.Succeeded = v != 0
		}
		return err
	})
	return r, err
}

// leaseResponse is the ID, TTL and granted TTL of the lease answers
// (LeaseGrantResponse: ID 2, TTL 3, error 4; LeaseKeepAliveResponse: ID 2, TTL 3;
// LeaseTimeToLiveResponse: ID 2, TTL 3, grantedTTL 4).
type leaseResponse struct {
	ID, TTL, GrantedTTL int64
	Error               string
}

func decodeLeaseResponse(b []byte, grant bool) (*leaseResponse, error) {
	r := &leaseResponse{}
	err := eachField(b, func(num int, v uint64, b []byte) error {
		switch {
		case num == 2:
			r.ID = int64(v)
		case num == 3:
			r.TTL = int64(v)
		case num == 4 && grant:
			r.Error = string(b)
		case num == 4:
			r.GrantedTTL = int64(v)
		}
		return nil
	})
	return r, err
}

// watchCreateRequest is WatchRequest{create_request 1: WatchCreateRequest{key 1,
// range_end 2, start_revision 3}}.
func watchCreateRequest(key, end []byte, rev int64) []byte {
	c := appendBytes(nil, 1, key, true)
	c = appendBytes(c, 2, end, false)
	c = appendInt(c, 3, rev)
	return appendBytes(nil, 1, c, true)
}

type watchEvent struct {
	Delete bool // type DELETE (1); a put is 0
	Kv     keyValue
}

type watchResponse struct {
	Header          header
	Created         bool
	Canceled        bool
	CompactRevision int64
	CancelReason    string
	Events          []watchEvent
}

func decodeWatchResponse(b []byte) (*watchResponse, error) {
	r := &watchResponse{}
	err := eachField(b, func(num int, v uint64, b []byte) error {
		var err error
		switch num {
		case 1:
			r.Header, err = decodeHeader(b)
		case 3:
			r.Created = v != 0
		case 4:
			r.Canceled = v != 0
		case 5:
			r.CompactRevision = int64(v)
		case 6:
			r.CancelReason = string(b)
		case 11:
			var ev watchEvent
			err = eachField(b, func(num int, v uint64, b []byte) error {
				var err error
				switch num {
				case 1:
					ev.Delete = v == 1
				case 2:
					ev.Kv, err = decodeKeyValue(b)
				}
				return err
			})
			r.Events = append(r.Events, ev)
		}
		return err
	})
	return r, err
}

// authenticateRequest is AuthenticateRequest (name 1, password 2); the answer's token
// is field 2.
func authenticateRequest(name, password string) []byte {
	return appendBytes(appendBytes(nil, 1, []byte(name), true), 2, []byte(password), false)
}

func decodeToken(b []byte) (string, error) {
	var token string
	err := eachField(b, func(num int, _ uint64, b []byte) error {
		if num == 2 {
			token = string(b)
		}
		return nil
	})
	return token, err
}

// idRequest is a lease request that names only the lease (ID field 1: revoke,
// keep-alive, time-to-live).
func idRequest(id int64) []byte { return appendInt(nil, 1, id) }

// grantRequest is LeaseGrantRequest (TTL 1).
func grantRequest(ttl int64) []byte { return appendInt(nil, 1, ttl) }
