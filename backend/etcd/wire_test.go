package etcd

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/proto"
)

// guard's hand-written messages must be what etcd's own generated code makes and
// reads: each is checked against etcdserverpb (linked by the tests only).
func TestWireMessagesAreEtcdsOwn(t *testing.T) {
	t.Run("a transaction of compares and a put", func(t *testing.T) {
		cmps := []compare{unchangedSince("/g/p/locks/d:src/", 41), createdAt("/g/p/locks/f:lock.txt", 0), createdAt("/g/p/k", 7)}
		ops := []requestOp{{Put: &putRequest{Key: []byte("/g/p/k"), Value: []byte(`{"name":"LOCK.txt"}`), Lease: 0x694d7a1b2c3d4e5f}}, {Put: &putRequest{Key: []byte("/g/p/k"), IgnoreLease: true}}, {Delete: &deleteRequest{Key: []byte("/g/p/k")}}}
		var got pb.TxnRequest
		require.NoError(t, unmarshal(&got, txnRequest(cmps, ops)))
		want := pb.TxnRequest{
			Compare: []*pb.Compare{
				{Result: pb.Compare_LESS, Target: pb.Compare_MOD, Key: []byte("/g/p/locks/d:src/"), RangeEnd: []byte("/g/p/locks/d:src0"), TargetUnion: &pb.Compare_ModRevision{ModRevision: 42}},
				{Result: pb.Compare_EQUAL, Target: pb.Compare_CREATE, Key: []byte("/g/p/locks/f:lock.txt"), TargetUnion: &pb.Compare_CreateRevision{CreateRevision: 0}},
				{Result: pb.Compare_EQUAL, Target: pb.Compare_CREATE, Key: []byte("/g/p/k"), TargetUnion: &pb.Compare_CreateRevision{CreateRevision: 7}},
			},
			Success: []*pb.RequestOp{
				{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: []byte("/g/p/k"), Value: []byte(`{"name":"LOCK.txt"}`), Lease: 0x694d7a1b2c3d4e5f}}},
				{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: []byte("/g/p/k"), IgnoreLease: true}}},
				{Request: &pb.RequestOp_RequestDeleteRange{RequestDeleteRange: &pb.DeleteRangeRequest{Key: []byte("/g/p/k")}}},
			},
		}
		assert.True(t, proto.Equal(&want, &got), "got %v", &got)
	})

	t.Run("range, lease and watch requests", func(t *testing.T) {
		var r pb.RangeRequest
		require.NoError(t, unmarshal(&r, rangeRequest([]byte("/g/"), prefixEnd("/g/"))))
		assert.True(t, proto.Equal(&pb.RangeRequest{Key: []byte("/g/"), RangeEnd: []byte("/g0")}, &r), "got %v", &r)
		var g pb.LeaseGrantRequest
		require.NoError(t, unmarshal(&g, grantRequest(30)))
		assert.Equal(t, int64(30), g.TTL)
		var k pb.LeaseKeepAliveRequest
		require.NoError(t, unmarshal(&k, idRequest(-5)))
		assert.Equal(t, int64(-5), k.ID)
		var w pb.WatchRequest
		require.NoError(t, unmarshal(&w, watchCreateRequest([]byte("/g/k"), nil, 9)))
		assert.True(t, proto.Equal(&pb.WatchRequest{RequestUnion: &pb.WatchRequest_CreateRequest{CreateRequest: &pb.WatchCreateRequest{Key: []byte("/g/k"), StartRevision: 9}}}, &w), "got %v", &w)
		var a pb.AuthenticateRequest
		require.NoError(t, unmarshal(&a, authenticateRequest("root", "s3cret")))
		assert.Equal(t, "root", a.Name)
		assert.Equal(t, "s3cret", a.Password)
	})

	t.Run("answers", func(t *testing.T) {
		h := &pb.ResponseHeader{ClusterId: 1, MemberId: 2, Revision: 77, RaftTerm: 3}
		kv := &mvccpb.KeyValue{Key: []byte("k"), CreateRevision: 5, ModRevision: 6, Version: 2, Value: []byte("v"), Lease: 99}
		data, err := proto.Marshal(&pb.RangeResponse{Header: h, Kvs: []*mvccpb.KeyValue{kv, kv}, Count: 2})
		require.NoError(t, err)
		rr, err := decodeRangeResponse(data)
		require.NoError(t, err)
		want := keyValue{Key: []byte("k"), Value: []byte("v"), CreateRevision: 5, ModRevision: 6, Lease: 99}
		assert.Equal(t, &rangeResponse{Header: header{Revision: 77}, Kvs: []keyValue{want, want}}, rr)

		data, err = proto.Marshal(&pb.TxnResponse{Header: h, Succeeded: true})
		require.NoError(t, err)
		tr, err := decodeTxnResponse(data)
		require.NoError(t, err)
		assert.Equal(t, &txnResponse{Header: header{Revision: 77}, Succeeded: true}, tr)

		data, err = proto.Marshal(&pb.LeaseGrantResponse{Header: h, ID: 12, TTL: 30, Error: ""})
		require.NoError(t, err)
		lr, err := decodeLeaseResponse(data, true)
		require.NoError(t, err)
		assert.Equal(t, &leaseResponse{ID: 12, TTL: 30}, lr)

		data, err = proto.Marshal(&pb.LeaseTimeToLiveResponse{Header: h, ID: 12, TTL: 20, GrantedTTL: 30})
		require.NoError(t, err)
		lr, err = decodeLeaseResponse(data, false)
		require.NoError(t, err)
		assert.Equal(t, &leaseResponse{ID: 12, TTL: 20, GrantedTTL: 30}, lr)

		data, err = proto.Marshal(&pb.WatchResponse{Header: h, WatchId: 1, Canceled: true, CompactRevision: 4, CancelReason: "compacted",
			Events: []*mvccpb.Event{{Type: mvccpb.PUT, Kv: kv}, {Type: mvccpb.DELETE, Kv: kv}}})
		require.NoError(t, err)
		wr, err := decodeWatchResponse(data)
		require.NoError(t, err)
		assert.Equal(t, &watchResponse{Header: header{Revision: 77}, Canceled: true, CompactRevision: 4, CancelReason: "compacted",
			Events: []watchEvent{{Kv: want}, {Delete: true, Kv: want}}}, wr)

		data, err = proto.Marshal(&pb.AuthenticateResponse{Header: h, Token: "tok.123"})
		require.NoError(t, err)
		token, err := decodeToken(data)
		require.NoError(t, err)
		assert.Equal(t, "tok.123", token)
	})
}

// FuzzWireDecoders: no answer, however malformed, makes a decoder panic or read past
// its message.
func FuzzWireDecoders(f *testing.F) {
	kv := &mvccpb.KeyValue{Key: []byte("k"), CreateRevision: 5, Value: []byte("v"), Lease: 99}
	for _, m := range []proto.Message{
		&pb.RangeResponse{Header: &pb.ResponseHeader{Revision: 3}, Kvs: []*mvccpb.KeyValue{kv}},
		&pb.WatchResponse{Events: []*mvccpb.Event{{Type: mvccpb.DELETE, Kv: kv}}},
		&pb.TxnResponse{Succeeded: true},
	} {
		data, err := proto.Marshal(m)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Add([]byte{0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = decodeRangeResponse(data)
		_, _ = decodeTxnResponse(data)
		_, _ = decodeLeaseResponse(data, true)
		_, _ = decodeLeaseResponse(data, false)
		_, _ = decodeWatchResponse(data)
		_, _ = decodeToken(data)
	})
}

func unmarshal(m proto.Message, data []byte) error { return proto.Unmarshal(data, m) }
