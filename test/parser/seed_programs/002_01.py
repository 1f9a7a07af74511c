import jax
jax.devices()
