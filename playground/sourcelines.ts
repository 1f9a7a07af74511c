// Python lines of a run-time error: the line a PythonError names, else the
// first stack frame in the generated host module, mapped back through the
// host's line source map (src/codegen/sourcemap.ts writes one segment, at
// column 0, per generated line that came from a Python statement).
import type { SourceMapV3 } from '../src/codegen/sourcemap.js';

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** The VLQ numbers of one segment. */
function decodeSegment(seg: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of seg) {
    const digit = B64.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      out.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return out;
}

/** For each generated line (0-based), the 1-based source line of its first segment, or undefined. */
export function decodeLineMap(map: SourceMapV3): (number | undefined)[] {
  let srcLine = 0;
  return map.mappings.split(';').map((line) => {
    let first: number | undefined;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const f = decodeSegment(seg);
      if (f.length >= 3) {
        srcLine += f[2]!;
        first ??= srcLine + 1;
      }
    }
    return first;
  });
}

/**
 * The Python line an error's stack points at: the first frame in `moduleUrl`
 * whose generated line maps to one (nearest mapped line at or above it).
 */
export function pythonLineOfStack(stack: string, moduleUrl: string, lines: readonly (number | undefined)[]): number | null {
  for (const m of stack.matchAll(/(blob:[^\s)]+?):(\d+):(\d+)/g)) {
    if (m[1] !== moduleUrl) continue;
    for (let l = Number(m[2]) - 1; l >= 0; l--) {
      const py = lines[l];
      if (py !== undefined) return py;
    }
  }
  return null;
}
