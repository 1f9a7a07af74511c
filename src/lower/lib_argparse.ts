// argparse, as training scripts use it for their settings (`parser.add_argument("--lr", type=float,
// default=1e-3)`, `args = parser.parse_args()`): written in the supported Python subset, run once per
// compilation on the first import. A jaxts program has no command line, so parse_args() with no list
// gives the defaults (as the script run with no arguments does); a list given to it is parsed (`--x v`,
// `--x=v`, store_true/store_false/store_const/count/append, positionals, choices, type conversion).
// Namespace prints as CPython's; vars(args) is its attributes. Help and usage text are not produced.
import { parse } from '../parser/index.js';
import type { Interp } from './interp.js';
import { markSpans } from './lib_example_libraries.js';
import { execBlock } from './stmt.js';
import { PyModule, Scope } from './values.js';

const ARGPARSE_PY = `
class Namespace:
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)

    def __repr__(self):
        return "Namespace(" + ", ".join(f"{k}={v!r}" for k, v in vars(self).items()) + ")"

    def __contains__(self, key):
        return key in vars(self)

    def __eq__(self, other):
        return isinstance(other, Namespace) and vars(self) == vars(other)


class ArgumentError(Exception):
    pass


class Action:
    def __init__(self, option_strings, dest, action, default, type, choices, required, help, const, nargs, metavar):
        self.option_strings = option_strings
        self.dest = dest
        self.action = action
        self.default = default
        self.type = type
        self.choices = choices
        self.required = required
        self.help = help
        self.const = const
        self.nargs = nargs
        self.metavar = metavar


class ArgumentParser:
    def __init__(self, prog=None, usage=None, description=None, epilog=None, parents=(), formatter_class=None, prefix_chars="-", fromfile_prefix_chars=None, argument_default=None, conflict_handler="error", add_help=True, allow_abbrev=True, exit_on_error=True):
        self.prog = prog
        self.description = description
        self.epilog = epilog
        self._actions = []
        self._defaults = {}
        for p in parents:
            self._actions.extend(p._actions)
            self._defaults.update(p._defaults)

    def add_argument(self, *names, action="store", default=None, type=None, choices=None, required=False, help=None, const=None, nargs=None, dest=None, metavar=None):
        if names[0].startswith("-"):
            longs = [n for n in names if n.startswith("--")]
            name = dest if dest is not None else (longs[0] if longs else names[0]).lstrip("-").replace("-", "_")
            options = list(names)
        else:
            name = names[0]
            options = []
        if action == "store_true":
            default = False if default is None else default
        elif action == "store_false":
            default = True if default is None else default
        if isinstance(default, str) and type is not None:
            default = type(default)
        a = Action(options, name, action, default, type, choices, required, help, const, nargs, metavar)
        self._actions.append(a)
        return a

    def add_argument_group(self, title=None, description=None):
        return self

    def add_mutually_exclusive_group(self, required=False):
        return self

    def set_defaults(self, **kwargs):
        self._defaults.update(kwargs)

    def get_default(self, dest):
        if dest in self._defaults:
            return self._defaults[dest]
        for a in self._actions:
            if a.dest == dest:
                return a.default
        return None

    def _convert(self, a, text):
        v = a.type(text) if a.type is not None else text
        if a.choices is not None and v not in a.choices:
            self.error(f"argument {'/'.join(a.option_strings) or a.dest}: invalid choice: {v!r} (choose from {', '.join(repr(c) for c in a.choices)})")
        return v

    def parse_known_args(self, args=None, namespace=None):
        values = {}
        for a in self._actions:
            values[a.dest] = a.default
        values.update(self._defaults)
        args = [] if args is None else list(args)
        extras = []
        positionals = [a for a in self._actions if not a.option_strings]
        seen = []
        i = 0
        while i < len(args):
            text = args[i]
            if text.startswith("-") and len(text) > 1:
                opt, eq, val = text.partition("=")
                found = [a for a in self._actions if opt in a.option_strings]
                if not found:
                    extras.append(text)
                    i += 1
                    continue
                a = found[0]
                seen.append(a.dest)
                if a.action == "store_true":
                    values[a.dest] = True
                elif a.action == "store_false":
                    values[a.dest] = False
                elif a.action == "store_const":
                    values[a.dest] = a.const
                elif a.action == "count":
                    values[a.dest] = (values[a.dest] or 0) + 1
                else:
                    if not eq:
                        i += 1
                        val = args[i]
                    if a.action == "append":
                        values[a.dest] = (values[a.dest] or []) + [self._convert(a, val)]
                    else:
                        values[a.dest] = self._convert(a, val)
            elif positionals:
                a = positionals.pop(0)
                seen.append(a.dest)
                values[a.dest] = self._convert(a, text)
            else:
                extras.append(text)
            i += 1
        missing = [a.dest if not a.option_strings else "/".join(a.option_strings) for a in self._actions if (a.required or (not a.option_strings and a.nargs not in ("?", "*"))) and a.dest not in seen]
        if missing:
            self.error("the following arguments are required: " + ", ".join(missing))
        ns = Namespace() if namespace is None else namespace
        for k, v in values.items():
            setattr(ns, k, v)
        return ns, extras

    def parse_args(self, args=None, namespace=None):
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error("unrecognized arguments: " + " ".join(extras))
        return ns

    def error(self, message):
        raise SystemExit(2)
`;

const loaded = new WeakMap<Interp, PyModule>();

/** The argparse module of this compilation (its public names). */
export function argparseModule(ip: Interp): PyModule {
  const have = loaded.get(ip);
  if (have) return have;
  const scope = new Scope(ip.builtins);
  const source = parse(ARGPARSE_PY);
  markSpans(source);
  execBlock(ip, source.body, scope);
  const mod = new PyModule('argparse', new Map([...scope.vars].filter(([k]) => !k.startsWith('_'))));
  loaded.set(ip, mod);
  return mod;
}
