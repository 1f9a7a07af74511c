# 2D mesh: data 4 + model 2
devices = np.array(jax.devices()).reshape(4, 2)
mesh_2d = Mesh(devices, axis_names=("data", "model"))

# 큰 layer 를 model axis 로 sharding
W_sharded = jax.device_put(
    jnp.zeros((D, D_hidden)),
    NamedSharding(mesh_2d, P(None, "model")),
)
# data axis 는 batch, model axis 는 weight 의 column 분산
