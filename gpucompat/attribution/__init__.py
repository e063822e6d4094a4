"""Which part of the user's model code each op came from: the Keras layer, the PyTorch module or
the TensorFlow name scope, read from the locations converters write into tensor names
(docs/attribution.md). Reads the IR only: no TensorFlow or torch import."""
