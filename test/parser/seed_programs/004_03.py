from jax.sharding import Mesh, NamedSharding, PartitionSpec

devices = np.array(jax.devices())
mesh = Mesh(devices, ("x",))

y = jax.device_put(x, NamedSharding(mesh, PartitionSpec("x", None)))
z = y ** 2
z
