// The benchmarks' model, run as a child process so its CPU is not counted as Tern's: a loopback
// chat-completions server that answers a user message with one tool call and a tool result with text, at once;
// a request without tools (the session summarizer's) gets text too, so long sessions are summarized as in use.
// It prints its URL on the first line of stdout and stops when stdin closes. With `--spawn` the tool call is a
// `spawn` of a task, and the subagent's own request (its user message opens "You are a subagent") gets text.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const answer = (finish: string, message: Record<string, unknown>): string =>
  JSON.stringify({
    id: 'b',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, finish_reason: finish, message }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
const toolAnswer = answer('tool_calls', {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'todo', arguments: '{"action":"read"}' } }],
});
const spawnAnswer = answer('tool_calls', {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'spawn', arguments: '{"task":"count to three"}' } }],
});
const textAnswer = answer('stop', { role: 'assistant', content: 'done' });
const spawning = process.argv.includes('--spawn');

function choose(body: Buffer): string {
  if (spawning && body.includes('You are a subagent')) return textAnswer;
  return body.includes('"tools"') && !body.includes('"role":"tool"')
    ? spawning
      ? spawnAnswer
      : toolAnswer
    : textAnswer;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(choose(Buffer.concat(chunks)));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
