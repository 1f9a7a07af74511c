jax.pmap(convolve)(xs, jax.pmap(convolve)(xs, ws))
