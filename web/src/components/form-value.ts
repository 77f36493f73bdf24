// Reading and writing one place of the config being edited: the form and the raw JSON share one object.
import type { Json, Path } from './form-schema.js';

export function getAt(root: Json, path: Path): Json | undefined {
  let node: Json | undefined = root;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = Array.isArray(node) ? node[Number(step)] : node[String(step)];
  }
  return node;
}

/** Sets the value, making the blocks on the way; `undefined` removes the key (an optional field left empty). */
export function setAt(root: Json, path: Path, value: Json | undefined): void {
  let node = root;
  for (const [index, step] of path.slice(0, -1).entries()) {
    if (node === null || typeof node !== 'object') return;
    const next: Json | undefined = Array.isArray(node) ? node[Number(step)] : node[String(step)];
    if (next !== null && typeof next === 'object') node = next;
    else {
      const made: Json = typeof path[index + 1] === 'number' ? [] : {};
      if (Array.isArray(node)) node[Number(step)] = made;
      else node[String(step)] = made;
      node = made;
    }
  }
  const last = path[path.length - 1];
  if (last === undefined || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    if (value === undefined) node.splice(Number(last), 1);
    else node[Number(last)] = value;
  } else if (value === undefined) delete node[String(last)];
  else node[String(last)] = value;
}

/** `model_list.0.api_keys`: how `tern config validate` names a field. */
export const pathName = (path: Path): string => path.join('.');
