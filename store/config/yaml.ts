import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

const load = createRequire(import.meta.url);
let yaml: Yaml | undefined;

/**
 * The YAML library, loaded by the first caller: the config reads YAML only from a credentials file and writes it
 * only when migrating or editing one, and most commands do neither. Compiling it (about 160 KB) at every start cost
 * `tern status` a third of the code it loads. Required from node_modules, so the bundle leaves it out of the chunks
 * every command loads.
 */
export function yamlLibrary(): Yaml {
  yaml ??= load('yaml') as Yaml;
  return yaml;
}
