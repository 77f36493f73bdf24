import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ReplyWatch } from '../../adapters/launcher/reply-watch.js';
import { Bus, type EventDraft } from '../../bus/index.js';

const CHAT = 'direct:s1';
const SESSION = { agent: 'main', session: 'sk_v1_a' };

type Step = { began: true } | { shown: string } | { event: EventDraft };

const received = (channel: string): Step => ({
  event: { ...SESSION, type: 'message.received', data: { channel, account: 'default', message_id: 'm1', chat: CHAT, sender: 'web', text: 'hi' } },
});
const completed = (reply: string): Step => ({ event: { ...SESSION, turn: 't1', type: 'turn.completed', data: { reply, iterations: 1 } } });

const cases: Array<{ name: string; steps: Step[]; doneAfter: number | undefined }> = [
  { name: 'a streamed reply ends with the frame showing the final text', steps: [{ began: true }, received('web'), { shown: 'Hel' }, completed('Hello'), { shown: 'Hello' }], doneAfter: 4 },
  { name: 'a reply shown whole before the turn completed ends at the completion', steps: [{ began: true }, received('web'), { shown: 'Hi' }, completed('Hi')], doneAfter: 3 },
  { name: 'a blank reply ends at once (nothing will be sent)', steps: [{ began: true }, received('web'), completed('  ')], doneAfter: 2 },
  {
    name: 'a chat command ends with its reply',
    steps: [{ began: true }, received('web'), { event: { ...SESSION, type: 'command.handled', data: { command: 'help', reply: 'Commands: …' } } }, { shown: 'Commands: …' }],
    doneAfter: 3,
  },
  { name: 'an aborted turn ends the reply', steps: [{ began: true }, received('web'), { event: { ...SESSION, turn: 't1', type: 'turn.aborted', data: { reason: 'stop' } } }], doneAfter: 2 },
  { name: 'a turn of another channel is not this chat\'s reply', steps: [{ began: true }, received('telegram'), completed('Hi'), { shown: 'Hi' }], doneAfter: undefined },
  { name: 'a message sent without typing (the message tool) ends nothing', steps: [received('web'), completed('Hi'), { shown: 'Hi' }], doneAfter: undefined },
];

for (const c of cases) {
  test(`reply watch: ${c.name}`, () => {
    const bus = new Bus();
    const done: Array<[number, string]> = [];
    let step = -1;
    const watch = new ReplyWatch(bus, 'web', (chat) => done.push([step, chat]));
    for (const s of c.steps) {
      step++;
      if ('began' in s) watch.began(CHAT);
      else if ('shown' in s) watch.shown(CHAT, s.shown);
      else bus.publish(s.event);
    }
    watch.close();
    assert.equal(done, c.doneAfter === undefined ? [] : [[c.doneAfter, CHAT]]);
  });
}

test.run();
