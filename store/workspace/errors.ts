export type WorkspaceErrorCode = 'agent_frontmatter_invalid';

export class WorkspaceError extends Error {
  constructor(
    readonly code: WorkspaceErrorCode,
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join('; ')}`);
    this.name = 'WorkspaceError';
  }
}
