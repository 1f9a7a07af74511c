def f(x):
    return x ** 2 + jnp.sin(x)

# pmap — 첫 번째 axis 가 device axis (vmap 과 비슷)
parallel_f = jax.pmap(f)

# 입력 첫 axis 의 길이가 device 개수와 일치해야 함
x = jnp.arange(8).reshape(4, 2)  # 4 devices, 각 device 가 (2,) 받음
result = parallel_f(x)            # (4, 2)
