/** Failures of the cluster connection and its shared state that a user can act on. */
export class ClusterError extends Error {
  constructor(
    readonly code:
      | 'cluster_unreachable'
      | 'cluster_no_jetstream'
      | 'lease_held'
      | 'lease_lost'
      | 'mark_not_stored'
      | 'cluster_closed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ClusterError';
  }
}
