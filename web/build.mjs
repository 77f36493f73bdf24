// Bundles the dashboard into web/dist/ (app.js, app.css); run by `npm run build`.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

await build({
  entryPoints: [
    { in: here('./src/main.ts'), out: 'app' },
    { in: here('./styles.css'), out: 'app' },
  ],
  outdir: here('./dist'),
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
});
