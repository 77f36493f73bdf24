// The turn benchmark's model, run as a child process so its CPU is not counted as Tern's: a loopback
// chat-completions server that answers a user message with one tool call and a tool result with text, at once;
// a request without tools (the session summarizer's) gets text too, so long sessions are summarized as in use.
// It prints its URL on the first line of stdout and stops when stdin closes. With `--spawn` the tool call is a
// `spawn` of a task, and the subagent's own request (its user message opens "You are a subagent") gets text.
//
// It speaks HTTP/1.1 on a plain `net` server with answers made once: on a 2-core machine the model shares the
// cores with Tern, and Node's HTTP server cost ~0.2 ms of CPU per request here (~0.4 ms per bench turn), which
// the turns/s row paid for although it is not Tern's. Requests are framed by Content-Length, as Tern sends them.
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

const answer = (finish: string, message: Record<string, unknown>): Buffer => {
  const body = JSON.stringify({
    id: 'b', object: 'chat.completion', created: 1, model: 'm',
    choices: [{ index: 0, finish_reason: finish, message }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  return Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`);
};
const toolAnswer = answer('tool_calls', {
  role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'todo', arguments: '{"action":"read"}' } }],
});
const spawnAnswer = answer('tool_calls', {
  role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'spawn', arguments: '{"task":"count to three"}' } }],
});
const textAnswer = answer('stop', { role: 'assistant', content: 'done' });
const spawning = process.argv.includes('--spawn');
const SUBAGENT = Buffer.from('You are a subagent');
const badRequest = Buffer.from('HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;

function choose(body: Buffer): Buffer {
  if (spawning && body.includes(SUBAGENT)) return textAnswer;
  return body.includes('"tools"') && !body.includes('"role":"tool"') ? (spawning ? spawnAnswer : toolAnswer) : textAnswer;
}

/** Answers each whole request in what has arrived; keeps the unfinished rest for the next read. */
function serve(socket: Socket): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const headEnd = pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const length = CONTENT_LENGTH.exec(pending.toString('latin1', 0, headEnd));
      if (!length) {
        socket.end(badRequest);
        return;
      }
      const end = headEnd + HEAD_END.length + Number(length[1]);
      if (pending.length < end) return;
      socket.write(choose(pending.subarray(headEnd + HEAD_END.length, end)));
      pending = pending.subarray(end);
    }
  });
  socket.on('error', () => socket.destroy());
}

const server = createServer(serve);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
