// What a chaos run that lost or doubled answers leaves behind (`CHAOS_KEEP=<dir>`): each member's logs, the bot
// account's stream as JSON lines, and the chats' answers, so that a red run can be traced after its temp dirs are gone.
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';

export interface Evidence {
  /** Each member's id and AGENT_HOME. */
  homes: Array<{ id: string; home: string }>;
  natsUrl: string;
  account: string;
  /** What the run found, and each chat's answers. */
  summary: unknown;
}

/** Writes the evidence into a new folder under `dir`; returns its path. */
export async function keepEvidence(dir: string, evidence: Evidence): Promise<string> {
  const into = join(dir, `chaos-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(into, { recursive: true });
  for (const { id, home } of evidence.homes) {
    const logs = join(home, 'logs');
    if (existsSync(logs)) cpSync(logs, join(into, id), { recursive: true });
  }
  writeFileSync(join(into, 'summary.json'), JSON.stringify(evidence.summary, null, 1));
  const nc = await connectCluster(evidence.natsUrl);
  try {
    const log = await JetStreamEventStore.open(nc, { ...accountLog(evidence.account), readOnly: true });
    const lines = log.read().map((e) => JSON.stringify(e));
    writeFileSync(join(into, `${evidence.account}.jsonl`), `${lines.join('\n')}\n`);
    log.close();
  } finally {
    await nc.close();
  }
  return into;
}
