package model

import "strconv"

// MetadataRequest is a client's Metadata request for the topic
// (clients/src/main/java/org/apache/kafka/clients/producer/internals/ProducerMetadata.java,
// NetworkClient.DefaultMetadataUpdater#maybeUpdate): the producer sends it
// to a broker when its metadata is stale (NOT_LEADER_OR_FOLLOWER, a broken
// connection to a leader) or older than metadata.max.age.ms.
type MetadataRequest struct {
	CorrelationID int64
}

// AppendDescription appends "Metadata#3".
func (r *MetadataRequest) AppendDescription(b []byte) []byte {
	b = append(b, "Metadata#"...)
	return strconv.AppendInt(b, r.CorrelationID, 10)
}

// MetadataResponse answers a [MetadataRequest] from the broker's metadata
// cache: each partition's leader (a broker index, -1 while none is known,
// LEADER_NOT_AVAILABLE) and leader epoch.
type MetadataResponse struct {
	CorrelationID int64
	Leaders       []int32
	Epochs        []int32
}

// AppendDescription appends "MetadataResp#3 leaders=[b1,b2]".
func (r *MetadataResponse) AppendDescription(b []byte) []byte {
	b = append(b, "MetadataResp#"...)
	b = strconv.AppendInt(b, r.CorrelationID, 10)
	b = append(b, " leaders=["...)
	for i, l := range r.Leaders {
		if i > 0 {
			b = append(b, ',')
		}
		if l < 0 {
			b = append(b, '-')
			continue
		}
		b = append(b, 'b')
		b = strconv.AppendInt(b, int64(l)+1, 10)
	}
	return append(b, ']')
}
