// npm's `prepare` script. `npm install`, `npm ci` and `npm run prepare` build the bin here. The first `npx tern` runs
// it again: npm exec links this folder into its own cache and prepares it like any dependency, so a fresh clone rebuilt
// the whole bundle a second time (9–28 s, output hidden). Under npm exec an existing build is used as it is;
// `npm run build` rebuilds after a change.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')).bin.tern;
const underExec = process.env.npm_command === 'exec';

if (underExec && existsSync(`${root}/${bin}`)) process.exit(0);
if (underExec) process.stderr.write('tern: no build yet; building it once (npm run build)\n');
const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
process.exit(build.status ?? 1);
