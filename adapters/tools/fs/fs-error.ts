import { UnsafePathError, type UnsafeCode } from '../../../store/files/unsafe-path.js';
import { refusal, type RefusalCode } from '../sandbox/refusals.js';
import { ToolError } from '../tool.js';

const KNOWN: Record<string, (path: string) => ToolError> = {
  ENOENT: (path) => new ToolError('not_found', `${path} does not exist`),
  ENOTDIR: (path) => new ToolError('not_found', `${path} does not exist (a parent is not a directory)`),
  EISDIR: (path) => new ToolError('is_directory', `${path} is a directory; use list_dir to see its entries`),
  EACCES: (path) => new ToolError('permission_denied', `${path} cannot be accessed (permission denied)`),
  EPERM: (path) => new ToolError('permission_denied', `${path} cannot be accessed (operation not permitted)`),
  EEXIST: (path) => new ToolError('file_exists', `${path} already exists; pass overwrite: true to replace it`),
};

/** A link met where the checked path had none can only have been put there since: the path changed under us. */
const UNSAFE: Record<UnsafeCode, RefusalCode> = {
  link: 'path_changed',
  special_file: 'special_file',
  hard_link: 'hard_link',
};

/** File-system failures as text the model can act on; anything unexpected keeps its own message. */
export function asToolError(error: unknown, path: string): unknown {
  if (error instanceof ToolError) return error;
  if (error instanceof UnsafePathError) return refusal(UNSAFE[error.code], path);
  const code = (error as NodeJS.ErrnoException).code;
  const known = code ? KNOWN[code] : undefined;
  return known ? known(path) : error;
}

export async function withPath<T>(path: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asToolError(error, path);
  }
}
