// io: in-memory text and byte buffers (StringIO, BytesIO) as programs use them to hold a figure
// that savefig/imsave writes, or text. Their contents are compile-time values; bytes are a small
// stand-in class (bytes literals are not supported by jaxts), enough to pass a buffer's contents on.
import { pythonPrelude } from './python_prelude.js';
import type { Interp } from './interp.js';
import { PyBuiltin, PyModule } from './values.js';

const IO_PY = `
class _Buffer:
    def __init__(self, initial):
        self._buf = initial
        self._pos = 0
        self.closed = False

    def _check(self):
        if self.closed:
            raise ValueError('I/O operation on closed file.')

    def write(self, s):
        self._check()
        data = self._data(s)
        self._buf = self._buf[:self._pos] + data + self._buf[self._pos + len(data):]
        self._pos += len(data)
        return len(data)

    def writelines(self, lines):
        for s in lines:
            self.write(s)

    def read(self, size=-1):
        self._check()
        end = len(self._buf) if size is None or size < 0 else min(len(self._buf), self._pos + size)
        out = self._buf[self._pos:end]
        self._pos = max(self._pos, end)
        return self._wrap(out)

    def getvalue(self):
        self._check()
        return self._wrap(self._buf)

    def seek(self, pos, whence=0):
        self._check()
        self._pos = pos if whence == 0 else self._pos + pos if whence == 1 else len(self._buf) + pos
        return self._pos

    def tell(self):
        self._check()
        return self._pos

    def truncate(self, size=None):
        self._check()
        self._buf = self._buf[:self._pos if size is None else size]
        return len(self._buf)

    def seekable(self):
        return True

    def readable(self):
        return True

    def writable(self):
        return True

    def flush(self):
        pass

    def close(self):
        self.closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

class StringIO(_Buffer):
    def __init__(self, initial_value='', newline='\\n'):
        _Buffer.__init__(self, initial_value or '')

    def _data(self, s):
        if not isinstance(s, str):
            raise TypeError(f'string argument expected, got {type(s).__name__!r}')
        return s

    def _wrap(self, s):
        return s

    def readline(self):
        self._check()
        end = self._buf.find('\\n', self._pos)
        end = len(self._buf) if end < 0 else end + 1
        out = self._buf[self._pos:end]
        self._pos = max(self._pos, end)
        return out

    def __repr__(self):
        return '<_io.StringIO object>'

class _Bytes:
    def __init__(self, codes):
        self._codes = codes

    def __len__(self):
        return len(self._codes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return _Bytes(self._codes[i])
        return self._codes[i]

    def __eq__(self, other):
        return isinstance(other, _Bytes) and self._codes == other._codes

    def __repr__(self):
        return "b'" + ''.join(chr(c) if 32 <= c < 127 and c != 39 and c != 92 else f'\\\\x{c:02x}' for c in self._codes) + "'"

class BytesIO(_Buffer):
    def __init__(self, initial_bytes=None):
        _Buffer.__init__(self, [] if initial_bytes is None else list(initial_bytes._codes))

    def _data(self, s):
        if not isinstance(s, _Bytes):
            raise TypeError(f"a bytes-like object is required, not '{type(s).__name__}'")
        return s._codes

    def _wrap(self, codes):
        return _Bytes(list(codes))

    def __repr__(self):
        return '<_io.BytesIO object>'
`;

const PRELUDE = pythonPrelude(IO_PY, 'io');

/** The io module: StringIO and BytesIO. */
export function ioModule(ip: Interp): PyModule {
  const cls = (name: string): PyBuiltin => new PyBuiltin(name, (c) => PRELUDE.call(ip, name, c));
  return new PyModule('io', new Map([['StringIO', cls('StringIO')], ['BytesIO', cls('BytesIO')]]));
}
