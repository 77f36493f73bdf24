/** Why a signal ended the run, as `turn.aborted`, `subagent.ended` and the runtime's close record it. */
export function interruption(signal: AbortSignal): string {
  return signal.reason === 'SIGTERM' ? 'tern agent was terminated (SIGTERM)' : 'interrupted (Ctrl-C in tern agent)';
}
