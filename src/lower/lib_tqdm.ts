// The tqdm progress-bar package (tqdm, tqdm.auto, tqdm.autonotebook,
// tqdm.notebook) that training loops wrap their iterables in. tqdm draws its
// bar on stderr, so what a program prints on stdout is the same without it:
// here a bar is an object that iterates what it wraps and keeps its count and
// description, and tqdm.write prints its line as tqdm does (to stdout). The
// module is Python source run once per compilation, as jax.example_libraries.
import { CompileError } from '../common/diagnostics.js';
import type { Span } from '../parser/ast.js';
import { parse } from '../parser/index.js';
import type { Interp } from './interp.js';
import { markSpans } from './lib_example_libraries.js';
import { execBlock } from './stmt.js';
import { PyModule, Scope } from './values.js';

/** The import names that are tqdm (its front ends all give the same class here). */
export const TQDM_MODULES = ['tqdm', 'tqdm.auto', 'tqdm.autonotebook', 'tqdm.notebook', 'tqdm.std'];

const TQDM_PY = `
class tqdm:
  def __init__(self, iterable=None, desc=None, total=None, leave=True, file=None, ncols=None, mininterval=0.1,
               maxinterval=10.0, miniters=None, ascii=None, disable=False, unit='it', unit_scale=False,
               dynamic_ncols=False, smoothing=0.3, bar_format=None, initial=0, position=None, postfix=None,
               unit_divisor=1000, write_bytes=False, lock_args=None, nrows=None, colour=None, delay=0.0, **kwargs):
    if total is None and iterable is not None:
      try:
        total = len(iterable)
      except (TypeError, AttributeError):
        total = None
    self.iterable = iterable
    self.desc = desc or ''
    self.total = total
    self.n = initial
    self.disable = disable
    self.postfix = postfix

  # the wrapped iterable itself (a loop over a bar is the loop over it: over a range, a host loop)
  def __iter__(self):
    return self.iterable

  def __len__(self):
    return self.total if self.iterable is None else len(self.iterable)

  def __enter__(self):
    return self

  def __exit__(self, exc_type, exc_value, traceback):
    return False

  def update(self, n=1):
    self.n += n
    return True

  def set_description(self, desc=None, refresh=True):
    self.desc = (desc + ': ') if desc else ''

  def set_description_str(self, desc=None, refresh=True):
    self.desc = desc or ''

  def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
    pass

  def set_postfix_str(self, s='', refresh=True):
    self.postfix = s

  def refresh(self, nolock=False, lock_args=None):
    pass

  def clear(self, nolock=False):
    pass

  def reset(self, total=None):
    self.n = 0
    if total is not None:
      self.total = total

  def close(self):
    pass

  def display(self, msg=None, pos=None):
    pass

  @staticmethod
  def write(s, file=None, end='\\n', nolock=False):
    print(s, end=end, file=file)

def trange(*args, **kwargs):
  return tqdm(range(*args), **kwargs)
`;

const loaded = new WeakMap<Interp, PyModule>();

/** Module \`name\` (one of TQDM_MODULES): tqdm's source run once per compilation, each front end the same module. */
export function tqdmModule(ip: Interp, name: string, span: Span): PyModule {
  if (!TQDM_MODULES.includes(name)) throw new CompileError(`ModuleNotFoundError: No module named '${name}'`, span);
  let mod = loaded.get(ip);
  if (!mod) {
    const scope = new Scope(ip.builtins);
    const source = parse(TQDM_PY);
    markSpans(source);
    execBlock(ip, source.body, scope);
    mod = new PyModule('tqdm', new Map([...scope.vars]));
    for (const sub of ['auto', 'autonotebook', 'notebook', 'std']) mod.attrs.set(sub, mod);
    loaded.set(ip, mod);
  }
  return mod;
}
