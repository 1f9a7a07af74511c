import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, PartitionSpec as P, NamedSharding
from jax import random
import numpy as np

# ============ 0. mesh 만들기 ============
devices = np.array(jax.devices()).reshape(-1)
mesh = Mesh(devices, axis_names=("data",))   # 1D data-parallel mesh
n_devices = len(devices)
print(f"{n_devices} devices, mesh: {mesh}")

# ============ 1. data ============
key = random.PRNGKey(42)
key, x_key, y_key = random.split(key, 3)
N, D = 4096, 32
X = random.normal(x_key, (N, D))
true_w = random.normal(random.PRNGKey(1), (D,))
y = X @ true_w + 0.1 * random.normal(y_key, (N,))

# ============ 2. model + loss ============
def predict(params, x):
    return x @ params["w"] + params["b"]

def loss_fn(params, x, y):
    return jnp.mean((predict(params, x) - y) ** 2)

# ============ 3. train step ============
@jax.jit
def train_step(params, x, y, lr):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    new_params = jax.tree.map(lambda p, g: p - lr * g, params, grads)
    return new_params, loss

# ============ 4. shard + replicate ============
def shard_data(x):
    '''첫 axis 를 device 축으로 나눔'''
    return jax.device_put(x, NamedSharding(mesh, P("data")))

def replicate_params(params):
    return jax.device_put(params, NamedSharding(mesh, P()))

# 초기화
key, init_key = random.split(key)
params = {
    "w": random.normal(init_key, (D,)) * 0.01,
    "b": jnp.zeros(()),
}
params = replicate_params(params)

# data shard
batch_size = 256   # 전체 batch
X_sharded = shard_data(X[:batch_size])
y_sharded = shard_data(y[:batch_size])

# ============ 5. 학습 ============
for step in range(500):
    params, loss = train_step(params, X_sharded, y_sharded, 0.01)
    if step % 50 == 0:
        # loss 는 자동으로 device 간 평균
        print(f"step {step:3d}: loss = {float(loss):.4f}")

# ============ 6. checkpoint 저장 ============
# 모든 device 가 같은 params 라 — 그냥 host 로 가져옴
host_params = jax.device_get(params)
# host_params["w"].shape == (D,), host_params["b"].shape == ()

print(f"\n최종 w[:5]: {host_params['w'][:5]}")
print(f"true w[:5]: {true_w[:5]}")
print(f"\n최종 b: {host_params['b']:.4f}")
