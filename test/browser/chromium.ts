// Browser tests' harness: serve a folder from localhost (with the playground's
// own static server) and open it in Debian's headless Chromium (playwright-core,
// no browser download) with WebGPU on SwiftShader.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { servePlayground } from '../../src/playground.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

/** A static file server for `root` on a free localhost port. */
export async function serve(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const { url, close } = await servePlayground({ root, port: 0 });
  return { url, close };
}

/** Headless Chromium with WebGPU on SwiftShader. */
export async function launch(): Promise<Browser> {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  return chromium.launch({ executablePath: CHROMIUM, args: ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'] });
}
