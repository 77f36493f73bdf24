import { ToolError } from '../tool.js';

/** Refusal codes of the sandbox; tests and callers compare these, never the text. */
export type RefusalCode =
  | 'protected_path'
  | 'outside_workspace'
  | 'device_path'
  | 'invalid_path'
  | 'symlink_loop'
  | 'hard_link'
  | 'special_file'
  | 'path_changed';

export const protectedFileMessage = (path: string) => `access denied: ${path} is a protected file`;
export const outsideWorkspaceMessage = (path: string) => `access denied: ${path} is outside the workspace`;
export const devicePathMessage = (path: string) => `access denied: ${path} is a Windows device or NT path`;
export const invalidPathMessage = (path: string) => `access denied: ${JSON.stringify(path)} is not a valid path`;
export const symlinkLoopMessage = (path: string) => `access denied: ${path} is a symlink loop`;
export const hardLinkMessage = (path: string) =>
  `access denied: ${path} has more than one hard link; the file tools do not open ` +
  `hard-linked files (another name of it may be protected or outside the workspace)`;

export const specialFileMessage = (path: string) =>
  `access denied: ${path} is not a regular file (a FIFO, socket or device); the file tools open regular files only`;
export const pathChangedMessage = (path: string) =>
  `access denied: ${path} changed while it was being opened (a link appeared on its path); nothing was read or written`;

const messages: Record<RefusalCode, (path: string) => string> = {
  protected_path: protectedFileMessage,
  outside_workspace: outsideWorkspaceMessage,
  device_path: devicePathMessage,
  invalid_path: invalidPathMessage,
  symlink_loop: symlinkLoopMessage,
  hard_link: hardLinkMessage,
  special_file: specialFileMessage,
  path_changed: pathChangedMessage,
};

/** Codes of refusals by the sandbox and the exec guard: policy, not failure. */
const POLICY_CODES: ReadonlySet<string> = new Set<string>([
  ...Object.keys(messages),
  'dangerous_pattern',
  'path_outside_working_dir',
  'remote_exec',
]);

export function isPolicyRefusal(code: string): boolean {
  return POLICY_CODES.has(code);
}

export function refusal(code: RefusalCode, path: string): ToolError {
  return new ToolError(code, messages[code](path));
}
