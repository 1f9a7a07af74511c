// The jaxts command as an ES module (dist/cli.js). bin/jaxts.js starts it
// from the startup snapshot (src/cli_snapshot.ts) when one is built for this
// Node, and imports this file otherwise.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWith, runCli } from './cli.js';

exitWith(runCli(process.argv.slice(2), { distDir: dirname(fileURLToPath(import.meta.url)), importModule: (url) => import(url) }));
