def f(arr):
    return arr**2

jax.pmap(f)(x)
