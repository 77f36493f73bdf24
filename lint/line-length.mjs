// Fails on a code line over 120 characters in the folders below (Biome's lineWidth formats code; comments, strings,
// CSS and HTML are what it leaves long). Run by `npm run lint`; the other folders join once their lines are short.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const FOLDERS = [
  'machines/',
  'web/',
  'adapters/mcp/',
  'actors/mcp/',
  'adapters/launcher/',
  'actors/hooks/',
  'actors/evolution/',
  'actors/subagents/',
  'skills/',
  'adapters/providers/',
  'lint/',
];
const CODE = /\.(ts|mjs|cjs|js|css|html)$/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...FOLDERS], {
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => CODE.test(file) && !file.startsWith('web/dist/'));
const long = files.flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => ([...line].length > MAX ? [`${file}:${i + 1}: ${[...line].length} characters`] : [])),
);
for (const line of long) console.error(line);
if (long.length > 0) {
  console.error(`${long.length} lines over ${MAX} characters`);
  process.exit(1);
}
console.log(`no line over ${MAX} characters in ${files.length} files`);
