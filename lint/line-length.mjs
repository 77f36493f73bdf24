// Fails on a code line over 120 characters anywhere in the repository (Biome's lineWidth formats code; comments,
// strings, CSS and HTML are what it leaves long). Run by `npm run lint`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const MAX = 120;
const CODE = /\.(ts|mjs|cjs|js|css|html)$/;

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
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
