"""`gpucompat fix`: run the rewrites, verify the result numerically, write it atomically."""
