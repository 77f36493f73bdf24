/** Why the runtime would not open an entry: following or opening it could reach something other than what was meant. */
export type UnsafeCode = 'link' | 'special_file' | 'hard_link';

const reasons: Record<UnsafeCode, string> = {
  link: 'is a symbolic link, which is not followed here',
  special_file: 'is not a regular file (a FIFO, socket or device)',
  hard_link: 'has more than one hard link (another name of it may lie anywhere)',
};

export class UnsafePathError extends Error {
  constructor(
    readonly code: UnsafeCode,
    readonly path: string,
  ) {
    super(`${path} ${reasons[code]}`);
    this.name = 'UnsafePathError';
  }
}
