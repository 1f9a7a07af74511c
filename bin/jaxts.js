#!/bin/sh
":" //; d="$(dirname "$(readlink -f "$0" 2>/dev/null || echo "$0")")/../dist"; b="$d/snapshot/cli-$(node --version).blob"; [ -z "$JAXTS_NO_SNAPSHOT" ] && [ -f "$b" ] && exec node --snapshot-blob "$b" "$d/cli.js" "$@"; exec node "$0" "$@"
// The jaxts command (built by `npm run build`, which `npm ci` runs as prepare).
// The line above is for sh, and a string plus a comment for JavaScript: run as
// a program, it starts Node from the command's startup snapshot
// (dist/snapshot/, src/cli_snapshot.ts) when one was built for this Node,
// which saves the compiler's start-up; otherwise, and under `node
// bin/jaxts.js`, this module imports the command.
import '../dist/cli.js';
