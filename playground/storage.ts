// Keeping the playground's program: the text is saved in localStorage on each
// edit and put in the page's URL (#code=…, deflate-compressed, base64url), so
// a reload keeps it and a copied link opens the same program.

const KEY = 'jaxts-playground:source';

function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/** The URL fragment that carries `source`. */
export async function encodeSource(source: string): Promise<string> {
  return `code=${toBase64Url(await pipe(new TextEncoder().encode(source), new CompressionStream('deflate-raw')))}`;
}

/** The program a URL fragment (`#code=…`) carries, or null. */
export async function decodeSource(hash: string): Promise<string | null> {
  const m = /^#?code=([\w-]+)$/.exec(hash);
  if (!m) return null;
  try {
    return new TextDecoder().decode(await pipe(fromBase64Url(m[1]!), new DecompressionStream('deflate-raw')));
  } catch {
    return null;
  }
}

export function loadSaved(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null; // storage off (a file:// page in some browsers, private modes)
  }
}

export function save(source: string): void {
  try {
    localStorage.setItem(KEY, source);
  } catch {
    // storage full or off: the URL still carries the program
  }
}
