import numpy as np
import jax

print("devices:", jax.devices())

x = np.arange(4).reshape(2, 2)
print("x:", x)
