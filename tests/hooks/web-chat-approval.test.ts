import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chatSocket, replyStreamed, startDashboard, type Frame } from '../support/dashboard-harness.js';
import { passes } from '../support/eventually.js';
import { completionStreamText, sse } from '../support/vendor-chat-completions.js';

const content = (frame: Frame | undefined) => String(frame?.payload.content ?? '');

test(
  'the dashboard chat gets the approval question with Approve and Deny choices; ' +
    '/approve typed there runs the call',
  async () => {
    const dashboard = await startDashboard({ tools: { exec: { require_approval: true, allow_remote: true } } });
    try {
      const chat = await chatSocket(dashboard);
      const call = {
        index: 0,
        id: 'call_1',
        type: 'function',
        function: { name: 'exec', arguments: JSON.stringify({ command: 'echo from-the-web' }) },
      };
      dashboard.vendor.reply(sse([completionStreamText([{ tool_calls: [call] }], 'tool_calls')]));
      replyStreamed(dashboard.vendor, ['It ', 'ran.']);
      const turn = chat.send('run it', 'webapproval');
      let question: Frame | undefined;
      await passes(() => {
        question = chat.frames.find((f) => f.type === 'message.create' && Array.isArray(f.payload.choices));
        assert.ok(question, 'no question yet');
      });
      const id = /reply \/approve ([0-9a-f]{4}) or \/deny/.exec(content(question))?.[1];
      assert.is(content(question), `exec wants to run \`echo from-the-web\` — reply /approve ${id} or /deny ${id}`);
      assert.equal(question!.payload.choices, [
        { label: 'Approve', reply: `/approve ${id}` },
        { label: 'Deny', reply: `/deny ${id}` },
      ]);
      chat.socket.send(
        JSON.stringify({ type: 'message.send', session_id: 'webapproval', payload: { content: `/approve ${id}` } }),
      );
      await turn;
      await passes(() =>
        assert.ok(
          chat.frames.some((f) => f.type === 'message.update' && content(f) === 'It ran.') ||
            chat.frames.some((f) => content(f) === 'It ran.'),
        ),
      );
      assert.ok(chat.frames.some((f) => content(f) === 'Approved: exec goes ahead.'));
      const tool = (
        JSON.parse(dashboard.vendor.requests[1]!.body.toString()) as {
          messages: Array<{ role: string; content: string }>;
        }
      ).messages.at(-1);
      assert.equal(tool, { role: 'tool', tool_call_id: 'call_1', content: 'from-the-web\n' });
      chat.socket.close();
    } finally {
      await dashboard.close();
    }
  },
);

test.run();
