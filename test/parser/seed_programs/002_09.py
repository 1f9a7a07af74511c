jax.vmap(convolve)(xs, ws)
