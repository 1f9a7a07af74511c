jax.pmap(convolve)(xs, ws)
