// Source Map v3 for generated code: each generated line that came from a
// Python statement maps (at column 0) to the start of that statement's line.
export interface SourceMapV3 {
  version: 3;
  file: string;
  sources: string[];
  sourcesContent: string[];
  names: string[];
  mappings: string;
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function vlq(n: number): string {
  let v = n < 0 ? (-n << 1) | 1 : n << 1;
  let out = '';
  do {
    let digit = v & 31;
    v >>>= 5;
    if (v) digit |= 32;
    out += B64[digit];
  } while (v);
  return out;
}

/**
 * `lines[i]` is the 1-based source line generated line i (0-based) came
 * from, or undefined. Segment fields are deltas, as the format has them.
 */
export function lineSourceMap(file: string, source: string, sourceText: string, lines: readonly (number | undefined)[]): SourceMapV3 {
  let prevLine = 0;
  const mappings = lines
    .map((l) => {
      if (l === undefined) return '';
      const seg = vlq(0) + vlq(0) + vlq(l - 1 - prevLine) + vlq(0);
      prevLine = l - 1;
      return seg;
    })
    .join(';');
  return { version: 3, file, sources: [source], sourcesContent: [sourceText], names: [], mappings };
}

/** The map as a `//# sourceMappingURL=data:...` comment to end a file with. */
export function inlineSourceMapComment(map: SourceMapV3): string {
  // btoa takes Latin-1: encode the UTF-8 bytes (the source may be Korean) a chunk at a time
  const bytes = new TextEncoder().encode(JSON.stringify(map));
  let latin1 = '';
  for (let i = 0; i < bytes.length; i += 0x8000) latin1 += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const b64 = btoa(latin1);
  return `//# sourceMappingURL=data:application/json;charset=utf-8;base64,${b64}`;
}
