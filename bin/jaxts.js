#!/usr/bin/env node
// The jaxts command (built by `npm run build`, which `npm ci` runs as prepare).
import '../dist/cli.js';
