"""The OpenCL executor: runs delegated partitions in the delegate's 4-channel layout."""
