#!/usr/bin/env node
// The jaxts command's launcher (package.json "bin"; plain JavaScript, so it
// runs wherever Node does, Windows included). The command itself is
// dist/cli.js. To start fast, the launcher starts Node from a V8 startup
// snapshot of the command (src/cli_snapshot.ts: the compiler loaded and
// warmed up) when one exists for this Node and this build; a snapshot only
// loads into the Node that made it, so none is shipped: the first run imports
// dist/cli.js here and builds one in the background into a cache folder
// (JAXTS_CACHE_DIR, else the user's cache folder), for the runs after it.
// JAXTS_NO_SNAPSHOT=1 neither uses nor builds one; JAXTS_TRACE_LAUNCHER=1
// says on stderr which way the command started.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const snapshotScript = join(dist, 'snapshot', 'cli.cjs');
const env = process.env;
const trace = (what) => env.JAXTS_TRACE_LAUNCHER && process.stderr.write(`jaxts launcher: ${what}\n`);

/** The folder for startup snapshots: JAXTS_CACHE_DIR, else the platform's per-user cache folder. */
function cacheDir() {
  if (env.JAXTS_CACHE_DIR) return env.JAXTS_CACHE_DIR;
  if (process.platform === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'jaxts', 'Cache');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'jaxts');
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'jaxts');
}

/** The snapshot's file name: a hash of what it depends on (this Node binary and version, the bundle it is built from). */
function blobName() {
  const st = statSync(snapshotScript);
  const key = [process.execPath, process.version, process.arch, snapshotScript, st.size, st.mtimeMs].join('\0');
  let h = 0x811c9dc5; // FNV-1a, 32 bits, twice with different seeds for 64 bits
  let g = 0x1000193;
  for (let i = 0; i < key.length; i++) {
    h = Math.imul(h ^ key.charCodeAt(i), 0x1000193) >>> 0;
    g = Math.imul(g ^ key.charCodeAt(i), 0x811c9dc5) >>> 0;
  }
  return `cli-${process.version}-${h.toString(16).padStart(8, '0')}${g.toString(16).padStart(8, '0')}.blob`;
}

if (env.JAXTS_LAUNCHER_BUILD) {
  // the background build started below (or a synchronous one a benchmark asks for): write to a
  // temporary name, then rename, so a launcher never sees half a blob
  const blob = join(cacheDir(), blobName());
  mkdirSync(cacheDir(), { recursive: true });
  const tmp = `${blob}.${process.pid}.tmp`;
  const r = spawnSync(process.execPath, ['--snapshot-blob', tmp, '--build-snapshot', snapshotScript], { stdio: 'ignore', windowsHide: true });
  if (r.status === 0 && existsSync(tmp)) renameSync(tmp, blob);
  else rmSync(tmp, { force: true });
  // keep the eight newest snapshots (other Node versions, installations or builds), delete older ones
  const dir = cacheDir();
  const old = readdirSync(dir)
    .filter((f) => /^cli-.*\.blob$/.test(f))
    .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t)
    .slice(8);
  for (const { f } of old) rmSync(join(dir, f), { force: true });
  process.exit(0);
}

let blob = null;
if (!env.JAXTS_NO_SNAPSHOT && existsSync(snapshotScript)) {
  try {
    blob = join(cacheDir(), blobName());
  } catch {
    blob = null; // no home folder: run without a snapshot
  }
}

if (blob && existsSync(blob)) {
  trace(`node --snapshot-blob ${blob}`);
  // argv[1] names dist/cli.js, the folder the resumed command finds the runtime in
  const child = spawn(process.execPath, ['--snapshot-blob', blob, join(dist, 'cli.js'), ...process.argv.slice(2)], { stdio: 'inherit', windowsHide: true });
  // a terminal's Ctrl+C reaches the child too: wait for its exit code rather than dying first
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(s, () => child.kill(s));
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeAllListeners(s);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
} else {
  if (blob) {
    try {
      mkdirSync(join(blob, '..'), { recursive: true });
      const builder = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
        detached: true,
        stdio: 'ignore',
        windowsHide: true,
        env: { ...env, JAXTS_LAUNCHER_BUILD: '1' },
      });
      builder.unref();
      trace(`building ${blob} in the background`);
    } catch {
      // a read-only cache folder: run without a snapshot
    }
  }
  trace('import dist/cli.js');
  await import('../dist/cli.js');
}
