// A list's node keys are remembered by message object (`store/log/blobs.ts`): the same objects in another order, or
// after another start, must still be stored under their own keys and read back as published. The drafts are taken
// as the bus takes the runtime's (`acceptDraft`): their data is the objects given, not a parsed copy.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptDraft, type Envelope } from '../../bus/index.js';
import { EventLog } from '../../store/log/event-log.js';
import { tempHome } from '../support/temp-home.js';

type Message = Envelope<'prompt.built'>['data']['messages'][number];

const prompt = (turn: string, messages: Message[]) =>
  acceptDraft({ type: 'prompt.built', session: 's1', turn, data: { system: 'be brief', messages, tools: [] } });

test('the same message objects in other orders and after other starts read back as each prompt held them', async () => {
  const home = tempHome();
  const log = EventLog.open(home.sessions);
  try {
    const a: Message = { role: 'user', content: 'first' };
    const b: Message = { role: 'assistant', content: 'second', tool_calls: [] };
    const c: Message = { role: 'user', content: 'third' };
    const lists = [[a, b, c], [b, a, c], [c, a, b], [a, b], [b], [a, b, c]];
    const seqs = lists.map((messages, i) => log.append(prompt(`t${i}`, messages)).seq);
    await log.committed();
    const read = seqs.map((seq) => (log.get(seq) as Envelope<'prompt.built'>).data.messages.map((m) => m.content));
    assert.equal(read, [
      ['first', 'second', 'third'],
      ['second', 'first', 'third'],
      ['third', 'first', 'second'],
      ['first', 'second'],
      ['second'],
      ['first', 'second', 'third'],
    ]);
  } finally {
    log.close();
    home.remove();
  }
});

test.run();
