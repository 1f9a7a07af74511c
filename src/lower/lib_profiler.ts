// jax.profiler: traces and memory profiles are files and servers for external tools (TensorBoard,
// Perfetto, pprof); nothing of them reaches a program's output, so here they record nothing.
// The calls keep JAX's own checks (one trace at a time) and the context managers and decorators work.
import { pythonPrelude } from './python_prelude.js';
import type { Interp } from './interp.js';
import { PyBuiltin, PyModule } from './values.js';

const PROFILER_PY = `
class ProfileOptions:
    def __init__(self):
        self.host_tracer_level = 2
        self.python_tracer_level = 0
        self.device_tracer_level = 1
        self.start_timestamp_ns = 0
        self.duration_ms = 0
        self.repository_path = ''
        self.raise_error_on_start_failure = False
        self.advanced_configuration = {}

_state = {'active': False}

def start_trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False, profiler_options=None):
    if _state['active']:
        raise RuntimeError('Profile has already been started. Only one profile may be run at a time.')
    _state['active'] = True

def stop_trace():
    if not _state['active']:
        raise RuntimeError('No profile started')
    _state['active'] = False

class _Trace:
    def __init__(self, log_dir, create_perfetto_link=False, create_perfetto_trace=False, profiler_options=None):
        self._log_dir = log_dir

    def __enter__(self):
        start_trace(self._log_dir)
        return self

    def __exit__(self, *exc):
        stop_trace()
        return False

def trace(log_dir, create_perfetto_link=False, create_perfetto_trace=False, profiler_options=None):
    return _Trace(log_dir)

class TraceAnnotation:
    def __init__(self, name, **kwargs):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

class StepTraceAnnotation(TraceAnnotation):
    def __init__(self, name, **kwargs):
        self.name = name

def annotate_function(func, name=None, **kwargs):
    return func

def start_server(port):
    return None

def stop_server():
    pass

def save_device_memory_profile(filename, backend=None):
    pass
`;

const PRELUDE = pythonPrelude(PROFILER_PY, 'jax.profiler');

/** The jax.profiler module. */
export function profilerModule(ip: Interp): PyModule {
  const names = ['ProfileOptions', 'start_trace', 'stop_trace', 'trace', 'TraceAnnotation', 'StepTraceAnnotation', 'annotate_function', 'start_server', 'stop_server', 'save_device_memory_profile'];
  return new PyModule('jax.profiler', new Map(names.map((n) => [n, new PyBuiltin(n, (c) => PRELUDE.call(ip, n, c))])));
}
