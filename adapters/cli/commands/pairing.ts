import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import { PairingDesk } from '../../../actors/pairing-desk.js';
import { InProcessBus, type Bus, type Envelope } from '../../../bus/index.js';
import { redactorOf, type LoadedConfig } from '../../../store/config/index.js';
import { LogError } from '../../../store/log/errors.js';
import { EventLog } from '../../../store/log/event-log.js';
import { normalizeCode, PairingStore, type PairingRequest, type QueuedDecision } from '../../../store/pairing.js';
import { logDir } from '../../../store/paths.js';
import { print, type CommandContext } from '../command.js';
import { CliError, subcommandError, UsageError } from '../errors.js';
import { readConfigForCli } from '../load-config.js';
import { columns } from '../table.js';

const SUBCOMMANDS = ['list', 'approve', 'deny'] as const;
/** How long a decision waits for the running gateway to take it from the pairing file (it looks every 2 s). */
const QUEUED_ANSWER_MS = 15_000;

type Answer = Envelope<'pairing.decided'> | Envelope<'pairing.decision.failed'>;

/** `1001 (@bob)`: the id the owner approves, with the names they know the sender by. */
function who(sender: string, aliases: readonly string[]): string {
  const others = aliases.filter((a) => a !== sender);
  return others.length > 0 ? `${sender} (${others.join(', ')})` : sender;
}

function list({ env, json, stdout }: CommandContext): number {
  const store = PairingStore.of(env);
  const now = Date.now();
  const waiting = store.pending(now);
  const approved = store.approved();
  if (json) {
    print(
      stdout,
      JSON.stringify({ ok: true, requests: waiting, approved: approved.map(({ notified: _, ...rest }) => rest) }),
    );
    return 0;
  }
  if (waiting.length === 0)
    print(stdout, 'No one waits: a stranger who writes to a channel without allow_from gets a code, listed here.');
  else {
    const minutes = (r: PairingRequest) =>
      `in ${Math.max(1, Math.ceil((Date.parse(r.expires_at) - now) / 60_000))} min`;
    print(
      stdout,
      columns(
        ['CODE', 'CHANNEL', 'SENDER', 'CHAT', 'EXPIRES'],
        waiting.map((r) => [r.code, r.channel, who(r.sender, r.aliases), r.chat, minutes(r)]),
      ),
    );
    print(stdout, 'Let one in with `tern pairing approve CODE`, or turn them away with `tern pairing deny CODE`.');
  }
  if (approved.length > 0) {
    print(stdout, `Approved (${store.path}):`);
    for (const a of approved)
      print(
        stdout,
        `  ${a.channel}  ${who(a.sender, a.aliases)}  since ${a.approved_at.slice(0, 16).replace('T', ' ')}`,
      );
  }
  return 0;
}

/** No process writes the event log: the decision is taken here, by the desk a gateway runs, on the log itself. */
async function decideHere(
  log: EventLog,
  loaded: LoadedConfig,
  store: PairingStore,
  queued: QueuedDecision,
): Promise<Answer | undefined> {
  try {
    const bus = new InProcessBus(log, { redact: (data) => redactorOf(loaded.config).value(data) });
    let answer: Answer | undefined;
    bus.on('pairing.decided', 'pairing.decision.failed').subscribe((event) => {
      if (event.data.request === queued.request) answer = event;
    });
    const desk = new PairingDesk({ bus, store, now: () => Date.now() });
    desk.start();
    bus.publish({ type: 'pairing.decision.requested', data: queued });
    desk.stop();
    await log.flushed();
    return answer;
  } finally {
    log.close();
  }
}

/**
 * Run by a gateway for a client over its control socket: its pairing desk takes the decision on its bus at once, so
 * the stranger's next message is let in (and they are told) without waiting for the gateway to look at the file.
 */
async function decideInGateway(bus: Bus, queued: QueuedDecision, signal: AbortSignal): Promise<Answer | undefined> {
  let answers: Subscription | undefined;
  const answered = new Promise<Answer | undefined>((resolve) => {
    answers = bus.on('pairing.decided', 'pairing.decision.failed').subscribe((event) => {
      if (event.data.request === queued.request) resolve(event);
    });
    signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  try {
    bus.publish({ type: 'pairing.decision.requested', data: queued });
    return await answered;
  } finally {
    answers?.unsubscribe();
  }
}

/**
 * A gateway holds the log but does not serve its control socket (yet): the decision is queued in the pairing file for
 * it, and its answer read from the log.
 */
async function decideThere(
  loaded: LoadedConfig,
  store: PairingStore,
  queued: QueuedDecision,
  holder: string,
  signal: AbortSignal,
): Promise<Answer> {
  const reader = EventLog.open(logDir(loaded.workspace), { readOnly: true });
  try {
    const after = reader.lastCommittedSeq();
    store.queueDecision(queued);
    const deadline = Date.now() + QUEUED_ANSWER_MS;
    while (Date.now() < deadline && !signal.aborted) {
      reader.refresh();
      const answer = reader
        .read({ after })
        .find(
          (e): e is Answer =>
            (e.type === 'pairing.decided' || e.type === 'pairing.decision.failed') && e.data.request === queued.request,
        );
      if (answer) return answer;
      await sleep(100);
    }
  } finally {
    reader.close();
  }
  throw new CliError(
    'decision_queued',
    `the decision on ${queued.code} is queued but not taken yet`,
    `${holder}; it did not take it from ${store.path} within ${QUEUED_ANSWER_MS / 1000} s`,
    'It is taken once that gateway runs again; check with `tern pairing list`.',
  );
}

/** The desk's answer: the gateway's when this runs in it, else one run here or by the gateway that holds the log. */
async function decided(
  context: CommandContext,
  loaded: LoadedConfig,
  store: PairingStore,
  queued: QueuedDecision,
): Promise<Answer | undefined> {
  if (context.gateway) return decideInGateway(context.gateway.core.bus, queued, context.signal);
  try {
    return await decideHere(EventLog.open(logDir(loaded.workspace)), loaded, store, queued);
  } catch (error) {
    if (!(error instanceof LogError && error.code === 'log_locked')) throw error;
    return decideThere(loaded, store, queued, error.message, context.signal);
  }
}

async function decision(context: CommandContext, decision: 'approve' | 'deny'): Promise<number> {
  const given = context.positionals[1];
  if (given === undefined || normalizeCode(given) === '')
    throw new UsageError(`pairing ${decision} needs a CODE`, 'Run `tern pairing list` to see the codes that wait.');
  const code = normalizeCode(given);
  const loaded = readConfigForCli(context.env);
  const store = PairingStore.of(context.env);
  const waiting = store.pending(Date.now()).find((r) => r.code === code);
  const queued: QueuedDecision = {
    request: `p_${Date.now().toString(36)}${randomBytes(3).toString('hex')}`,
    code,
    decision,
    by: 'cli',
  };
  const answer = await decided(context, loaded, store, queued);
  if (!answer || answer.type === 'pairing.decision.failed') {
    if (answer?.data.reason === 'expired') {
      throw new CliError(
        'pairing_expired',
        `pairing code ${code} has expired`,
        'a code is good for an hour',
        'Ask them to write to the bot again: they get a new code an hour after the last one.',
      );
    }
    throw new CliError(
      'pairing_unknown',
      `no pairing request has the code ${code}`,
      'it was never issued here, or it was decided already',
      'Run `tern pairing list` to see the codes that wait.',
    );
  }
  const { channel, sender } = answer.data;
  if (context.json) {
    print(
      context.stdout,
      JSON.stringify({ ok: true, code, decision, channel, sender, aliases: waiting?.aliases ?? [sender] }),
    );
    return 0;
  }
  const person = who(sender, waiting?.aliases ?? [sender]);
  if (decision === 'approve')
    print(context.stdout, `approved ${code}: ${person} may talk to the bot on ${channel} from now on`);
  else print(context.stdout, `denied ${code}: ${person} gets no answer on ${channel}, and no new code within the hour`);
  return 0;
}

/**
 * `tern pairing list | approve CODE | deny CODE`: the strangers who wrote to a channel without `allow_from` and got a
 * code, and the owner's decision on one. The decision is a `pairing.decision.requested` answered by a pairing desk:
 * a running gateway runs the command for the CLI over its control socket and its desk decides at once; with no gateway
 * the decision is taken here, on the event log.
 */
export async function run(context: CommandContext): Promise<number> {
  const [sub] = context.positionals;
  switch (sub) {
    case 'list':
      return list(context);
    case 'approve':
    case 'deny':
      return decision(context, sub);
    default:
      throw subcommandError('pairing', sub, SUBCOMMANDS);
  }
}
