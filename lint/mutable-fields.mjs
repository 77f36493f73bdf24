// Fails when a host of a machine keeps state of its own: a class field (or constructor parameter property) that is
// not `readonly` in the files below, or a `readonly` one that starts as a collection changed in place (`new Map()`,
// `new Set()`, `[]`, `{}`). The machine (or a reducer) is the state (issue #36); a host holds references to what it
// runs. Run by `npm run lint`.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

const HOSTS = [
  'actors/gateway/gateway.ts',
  'actors/evolution/evolution-actor.ts',
  'actors/cron/cron-actor.ts',
  'actors/mcp/connection.ts',
  'actors/mcp/manager.ts',
];

const COLLECTIONS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

const isReadonly = (node) => ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword) ?? false;
const isProperty = (node) =>
  ts.isParameter(node) && ts.getModifiers(node)?.some((m) => ts.isParameterPropertyModifier(m.kind));

/** A field's first value is a collection its class may change in place. */
const isCollection = (node) => {
  const value = ts.isPropertyDeclaration(node) ? node.initializer : undefined;
  if (!value) return false;
  if (ts.isArrayLiteralExpression(value) || ts.isObjectLiteralExpression(value)) return true;
  return ts.isNewExpression(value) && ts.isIdentifier(value.expression) && COLLECTIONS.has(value.expression.text);
};

/** Every mutable field of the classes in `file`, as `path:line: name`. */
export function mutableFields(file, text = readFileSync(file, 'utf8')) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    const field = ts.isPropertyDeclaration(node) || isProperty(node);
    if (field && (!isReadonly(node) || isCollection(node))) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${node.name.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = HOSTS.flatMap((file) => mutableFields(file));
  for (const line of found) console.error(`${line} is a mutable field: keep the state in the machine`);
  if (found.length > 0) process.exit(1);
  console.log(`no mutable field in ${HOSTS.length} hosts`);
}
