// `jaxts playground`: a static HTTP server for the built playground page
// (dist/playground, made by scripts/build.mjs), on localhost by default.
import { existsSync, readFile, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface PlaygroundServerOptions {
  /** 0 picks a free port; by default DEFAULT_PORT, or a free port when that one is taken. */
  port?: number;
  /** Default 127.0.0.1: the page is served to this machine only. */
  host?: string;
  /** The folder to serve; default the built page (see playgroundDir). */
  root?: string;
}

export interface PlaygroundServer {
  url: string;
  /** The page's index.html, which also works opened as a file, and its file:// URL. */
  file: string;
  fileUrl: string;
  close: () => Promise<void>;
}

export const DEFAULT_PORT = 8080;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * The built page: dist/playground next to the built CLI (dist/cli.js), or,
 * when this file runs from src/, the repository's dist/playground.
 */
export function playgroundDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'playground'), resolve(here, '../dist/playground')];
  const found = candidates.find((d) => existsSync(join(d, 'index.html')));
  if (!found) throw new Error(`the playground is not built (no ${candidates[0]}${sep}index.html); run \`npm run build\``);
  return found;
}

/** The file under `root` a request path names, or null when it leaves root or does not exist. */
function resolveRequest(root: string, url: string | undefined): string | null {
  let path: string;
  try {
    path = decodeURIComponent(new URL(url ?? '/', 'http://localhost').pathname);
  } catch {
    return null;
  }
  let file = resolve(root, `.${path}`);
  const rel = relative(root, file);
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
  return existsSync(file) ? file : null;
}

function handler(root: string): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const file = resolveRequest(root, req.url);
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    readFile(file, (err, body) => {
      if (err) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${err.message}\n`);
        return;
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache' });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      ok();
    });
  });
}

/** Serve the playground; resolves once listening (rejects when an explicitly given port is taken). */
export async function servePlayground(opts: PlaygroundServerOptions = {}): Promise<PlaygroundServer> {
  const root = resolve(opts.root ?? playgroundDir());
  const host = opts.host ?? '127.0.0.1';
  const server = createServer(handler(root));
  try {
    await listen(server, opts.port ?? DEFAULT_PORT, host);
  } catch (e) {
    if (opts.port !== undefined || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    await listen(server, 0, host);
  }
  const { port } = server.address() as AddressInfo;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const file = join(root, 'index.html');
  return {
    url: `http://${shown}:${port}/`,
    file,
    fileUrl: pathToFileURL(file).href,
    close: () =>
      new Promise((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
