Array([11., 20., 29.], dtype=float32)
