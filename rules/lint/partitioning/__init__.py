"""PRT family: how the graph splits and which partitions the delegate leaves on the CPU."""
