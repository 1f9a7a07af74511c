// Validation of the jaxts command line's values (--devices, --port, --host),
// apart from the argument parser: each function returns the value, or a
// message naming what is wrong, which the CLI reports as a usage error (exit 2).

/** The largest device count a program may simulate (each device holds a copy of every buffer it uses). */
export const MAX_DEVICES = 4096;

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** `--devices N`: a whole number from 1 to MAX_DEVICES. */
export function validateDevices(text: string): Checked<number> {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_DEVICES) return { ok: false, message: `--devices must be a whole number from 1 to ${MAX_DEVICES} (got '${text}')` };
  return { ok: true, value: n };
}

/** `--port N`: a TCP port, 0 (any free port) to 65535. */
export function validatePort(text: string): Checked<number> {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) return { ok: false, message: `--port must be a whole number from 0 to 65535 (got '${text}')` };
  return { ok: true, value: n };
}

/** `--host ADDR`: a non-empty host name or address without spaces (an empty one would listen on every interface). */
export function validateHost(text: string): Checked<string> {
  if (text.trim() === '' || /\s/.test(text)) return { ok: false, message: `--host must be a host name or an address (got '${text}')` };
  return { ok: true, value: text };
}
