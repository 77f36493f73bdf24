// Which missing answers of a chaos run (`chaos-run.ts`) the members named as maybe sent (#40): a reply part marked
// `left` by a member that died or was cut off is not sent again by the member taking the bot over, which logs it
// (`WARN a reply part was being sent when the process ended … send_key=…`). Its request was written, so it is
// missing only when the platform did not take it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectCluster } from '../../store/cluster/connection.js';
import { accountLog } from '../../store/cluster/stream-names.js';
import { JetStreamEventStore } from '../../store/log/jetstream-store.js';

const MAYBE_SENT = /a reply part was being sent when the process ended.* send_key=(\S+)/;

/** The send keys the members' gateway logs (under each AGENT_HOME) named as maybe sent. */
export function declaredMaybeSent(homes: string[]): Set<string> {
  const keys = new Set<string>();
  for (const home of homes) {
    const logs = join(home, 'logs');
    if (!existsSync(logs)) continue;
    for (const file of readdirSync(logs).filter((name) => name.startsWith('gateway.log'))) {
      for (const line of readFileSync(join(logs, file), 'utf8').split('\n')) {
        const key = MAYBE_SENT.exec(line)?.[1];
        if (key) keys.add(key);
      }
    }
  }
  return keys;
}

/** The send key of each reply part the account's stream intended, by the part's text (one-part replies). */
export async function sendKeysByText(natsUrl: string, account: string): Promise<Map<string, string[]>> {
  const nc = await connectCluster(natsUrl);
  try {
    const log = await JetStreamEventStore.open(nc, { ...accountLog(account), readOnly: true });
    const byText = new Map<string, string[]>();
    for (const event of log.iterate({ type: 'reply.requested' })) {
      const { text, key } = event.data as { text?: string; key: string };
      if (text !== undefined) byText.set(text, [...(byText.get(text) ?? []), `${key}:0`]);
    }
    log.close();
    return byText;
  } finally {
    await nc.close();
  }
}
