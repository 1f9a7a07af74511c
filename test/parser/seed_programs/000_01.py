import jax
import jax.numpy as jnp

# 사용 가능한 device 확인
print(jax.devices())
print(f"device 개수: {jax.device_count()}")

# 단일 device 환경에서도 시뮬레이션 가능
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
# (다음 import 부터 4 device 인 척)
