"""Oracle runner for jaxts goldens: runs ONE fixture program under real JAX, as `python FILE` would.

Usage: python scripts/oracle_run.py path/to/fixture.py
Invoked by scripts/oracle.sh, one fresh process per fixture. The caller sets JAX_PLATFORMS=cpu and a
default XLA_FLAGS; a program that assigns os.environ["XLA_FLAGS"] before its first JAX computation wins,
because importing jax does not initialize a backend (flags are read when the first backend is created).
A program that calls jax.config.update('jax_num_cpu_devices', N) gets N devices: in JAX 0.10.2 that
option wins over the default --xla_force_host_platform_device_count=4 (checked), so nothing is needed here.
"""
import os
import runpy
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: oracle_run.py FIXTURE.py", file=sys.stderr)
        return 2
    path = os.path.abspath(sys.argv[1])
    fixture_dir = os.path.dirname(path)
    os.chdir(fixture_dir)
    # Make the program see itself as the script being run.
    sys.argv = [path]
    sys.path.insert(0, fixture_dir)

    # The ONLY compatibility shim: old lessons call jax.tree_map, which JAX 0.6 removed in favour of
    # jax.tree.map. It is added when the program itself first imports jax (not before: JAX reads
    # JAX_ENABLE_X64 and other JAX_* variables from os.environ at its first import, and a program may set
    # them first, as `python FILE` sees it).
    import builtins

    real_import = builtins.__import__

    def import_with_shim(name, *args, **kwargs):
        module = real_import(name, *args, **kwargs)
        # (a partially initialized jax, while jax imports its own submodules, has no .tree yet)
        jax = sys.modules.get("jax")
        if jax is not None and name.split(".")[0] == "jax" and hasattr(jax, "tree") and not hasattr(jax, "tree_map"):
            jax.tree_map = jax.tree.map  # type: ignore[attr-defined]
        return module

    builtins.__import__ = import_with_shim

    runpy.run_path(path, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
