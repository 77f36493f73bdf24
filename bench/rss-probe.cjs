// Preloaded by bench/cli.ts: writes the process's peak RSS (KiB) to fd 3 when it exits.
process.on('exit', () => require('node:fs').writeSync(3, String(process.resourceUsage().maxRSS)));
