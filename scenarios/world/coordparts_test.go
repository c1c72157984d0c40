package world

import (
	"testing"

	"github.com/idemsim/idemsim/faults"
	"github.com/idemsim/idemsim/model"
)

// TestInternalPartitionIDs: a plan's elect-preferred hands its partition
// list to the controller as it is, so the plan's ids of the coordinators'
// internal partitions are the model's.
func TestInternalPartitionIDs(t *testing.T) {
	if faults.TxnStatePartition != model.TxnStatePartition || faults.OffsetsPartition != model.OffsetsPartition {
		t.Fatalf("faults' internal partitions %d, %d; the model's %d, %d", faults.TxnStatePartition, faults.OffsetsPartition, model.TxnStatePartition, model.OffsetsPartition)
	}
}
