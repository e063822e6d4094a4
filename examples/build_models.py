"""Build the bundled example models in examples/models/ (needs TensorFlow: pip install '.[dev]').

    python examples/build_models.py

segmenter.tflite    a small DeepLab-style segmenter exported with a dynamic batch, so the
                    converter leaves SPACE_TO_BATCH_ND / BATCH_TO_SPACE_ND around its dilated
                    convolution: the GPU delegate splits it and delegates only one partition.
classifier.tflite   a MobileNet-style classifier that the delegate takes whole.
"""

import os

import numpy as np
import tensorflow as tf

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def weights(shape, seed):
    return tf.constant(np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * 0.3)


def convert(fn, shape):
    spec = tf.TensorSpec(shape, tf.float32, name="image")
    concrete = tf.function(fn, input_signature=[spec]).get_concrete_function()
    return tf.lite.TFLiteConverter.from_concrete_functions([concrete]).convert()


def segmenter(x):
    x = tf.nn.relu6(tf.nn.conv2d(x, weights([3, 3, 3, 16], 1), 2, "SAME"))
    x = tf.nn.relu6(tf.nn.depthwise_conv2d(x, weights([3, 3, 16, 1], 2), [1, 1, 1, 1], "SAME", dilations=[2, 2]))
    x = tf.nn.relu(tf.nn.conv2d(x, weights([1, 1, 16, 8], 3), 1, "SAME"))
    x = tf.nn.conv2d(x, weights([1, 1, 8, 5], 4), 1, "SAME")
    return tf.image.resize(x, [64, 64], method="bilinear")


def classifier(x):
    x = tf.nn.relu6(tf.nn.conv2d(x, weights([3, 3, 3, 16], 5), 2, "SAME"))
    x = tf.nn.relu6(tf.nn.depthwise_conv2d(x, weights([3, 3, 16, 1], 6), [1, 1, 1, 1], "SAME"))
    x = tf.nn.relu6(tf.nn.conv2d(x, weights([1, 1, 16, 32], 7), 1, "SAME"))
    x = tf.reduce_mean(x, axis=[1, 2])
    return tf.nn.softmax(tf.matmul(x, weights([32, 10], 8)))


def main():
    os.makedirs(HERE, exist_ok=True)
    for name, fn, shape in (("segmenter", segmenter, [None, 64, 64, 3]), ("classifier", classifier, [1, 64, 64, 3])):
        with open(os.path.join(HERE, f"{name}.tflite"), "wb") as f:
            f.write(convert(fn, shape))
        print(f"wrote examples/models/{name}.tflite")


if __name__ == "__main__":
    main()
