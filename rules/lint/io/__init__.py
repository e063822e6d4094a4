"""IO family: what every inference pays at the CPU<->GPU boundary."""
