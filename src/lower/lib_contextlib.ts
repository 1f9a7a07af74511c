// contextlib: contextmanager (a generator function as a `with` statement's context manager),
// nullcontext and suppress, written in the supported Python subset as CPython's own
// contextlib.py writes them (the protocol is __enter__/__exit__ over next()/throw()).
import { pythonPrelude } from './python_prelude.js';
import type { Interp } from './interp.js';
import { PyBuiltin, PyModule } from './values.js';

const CONTEXTLIB_PY = `
class _GeneratorContextManager:
    def __init__(self, gen):
        self.gen = gen

    def __enter__(self):
        try:
            return next(self.gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, typ, value, traceback):
        if typ is None:
            try:
                next(self.gen)
            except StopIteration:
                return False
            raise RuntimeError("generator didn't stop")
        try:
            self.gen.throw(value)
        except StopIteration as exc:
            return exc is not value
        except BaseException as exc:
            if exc is value:
                return False
            raise
        raise RuntimeError("generator didn't stop after throw()")

def contextmanager(func):
    def helper(*args, **kwds):
        return _GeneratorContextManager(func(*args, **kwds))
    return helper

class _NullContext:
    def __init__(self, enter_result):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        pass

def nullcontext(enter_result=None):
    return _NullContext(enter_result)

class _Suppress:
    def __init__(self, exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        pass

    def __exit__(self, exctype, excinst, exctb):
        return exctype is not None and issubclass(exctype, self._exceptions)

def suppress(*exceptions):
    return _Suppress(exceptions)
`;

const PRELUDE = pythonPrelude(CONTEXTLIB_PY, 'contextlib');

/** The contextlib module: each function calls the prelude's. */
export function contextlibModule(ip: Interp): PyModule {
  return new PyModule('contextlib', new Map(PRELUDE.functions.map((n) => [n, new PyBuiltin(n, (c) => PRELUDE.call(ip, n, c))])));
}
