// weakref: ref(obj) as a callable that returns its referent. A compiled program's objects live
// as long as the compilation, so a reference never dies here (ref() never returns None).
import { pythonPrelude } from './python_prelude.js';
import type { Interp } from './interp.js';
import { PyBuiltin, PyModule } from './values.js';

const WEAKREF_PY = `
class _Ref:
    def __init__(self, obj, callback=None):
        self._obj = obj

    def __call__(self):
        return self._obj

    def __repr__(self):
        return f"<weakref; to '{type(self._obj).__name__}'>"

def ref(obj, callback=None):
    return _Ref(obj, callback)
`;

const PRELUDE = pythonPrelude(WEAKREF_PY, 'weakref');

/** The weakref module: ref (also as ReferenceType). */
export function weakrefModule(ip: Interp): PyModule {
  const ref = new PyBuiltin('ref', (c) => PRELUDE.call(ip, 'ref', c));
  return new PyModule('weakref', new Map([['ref', ref], ['ReferenceType', ref]]));
}
