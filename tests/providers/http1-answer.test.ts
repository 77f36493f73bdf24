import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnswerFormatError, AnswerParser, type ParsedAnswer } from '../../adapters/http/http1-answer.js';

interface Read {
  statusCode: number;
  rawHeaders: string[];
  body: string;
  reusable: boolean;
  keepAliveMs: number | undefined;
}

const readable = (answer: ParsedAnswer | undefined): Read | undefined => answer && { ...answer, body: answer.body.toString('utf8') };

/** The answer read from `pieces` pushed one after another, then the end of the connection. */
function read(pieces: string[]): Read | undefined {
  const parser = new AnswerParser();
  for (const piece of pieces) {
    const answer = parser.push(Buffer.from(piece));
    if (answer) return readable(answer);
  }
  return readable(parser.end());
}

const lengthAnswer = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nKeep-Alive: timeout=60\r\nContent-Length: 10\r\n\r\n{"a":"é"}';
const closeAnswer = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it';
const chunkedAnswer = 'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{"a"\r\n6\r\n:"é"}\r\n0\r\nx-trailer: 1\r\n\r\n';

const cases: Array<{ name: string; text: string; read: Read }> = [
  {
    name: 'a body framed by content-length, on a connection kept for the time the server names',
    text: lengthAnswer,
    read: { statusCode: 200, rawHeaders: ['content-type', 'application/json', 'Keep-Alive', 'timeout=60', 'Content-Length', '10'], body: '{"a":"é"}', reusable: true, keepAliveMs: 60_000 },
  },
  {
    name: 'a chunked body, with chunk extensions and trailers',
    text: chunkedAnswer,
    read: { statusCode: 201, rawHeaders: ['Transfer-Encoding', 'chunked'], body: '{"a":"é"}', reusable: true, keepAliveMs: undefined },
  },
  {
    name: 'interim answers before the real one',
    text: 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}',
    read: { statusCode: 200, rawHeaders: ['content-length', '2'], body: '{}', reusable: true, keepAliveMs: undefined },
  },
  {
    name: 'a 204 answer, which has no body',
    text: 'HTTP/1.1 204 No Content\r\n\r\n',
    read: { statusCode: 204, rawHeaders: [], body: '', reusable: true, keepAliveMs: undefined },
  },
  {
    name: 'a body that runs to the end of the connection, which then cannot be reused',
    text: closeAnswer,
    read: { statusCode: 200, rawHeaders: ['content-type', 'text/plain'], body: 'all of it', reusable: false, keepAliveMs: undefined },
  },
  {
    name: 'connection: close',
    text: 'HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\ncontent-length: 4\r\n\r\noops',
    read: { statusCode: 500, rawHeaders: ['Connection', 'close', 'content-length', '4'], body: 'oops', reusable: false, keepAliveMs: undefined },
  },
  {
    name: 'HTTP/1.0, kept alive only when it says so',
    text: 'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n{}',
    read: { statusCode: 200, rawHeaders: ['content-length', '2'], body: '{}', reusable: false, keepAliveMs: undefined },
  },
  {
    name: 'HTTP/1.0 that says Keep-Alive',
    text: 'HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\ncontent-length: 2\r\n\r\n{}',
    read: { statusCode: 200, rawHeaders: ['Connection', 'Keep-Alive', 'content-length', '2'], body: '{}', reusable: true, keepAliveMs: undefined },
  },
  {
    name: 'close among other connection options',
    text: 'HTTP/1.1 200 OK\r\nconnection: Upgrade , Close\r\ncontent-length: 2\r\n\r\n{}',
    read: { statusCode: 200, rawHeaders: ['connection', 'Upgrade , Close', 'content-length', '2'], body: '{}', reusable: false, keepAliveMs: undefined },
  },
  {
    name: 'bytes after the whole answer, which leave the connection unusable',
    text: 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}HTTP/1.1 200 OK\r\n',
    read: { statusCode: 200, rawHeaders: ['content-length', '2'], body: '{}', reusable: false, keepAliveMs: undefined },
  },
];

for (const { name, text, read: expected } of cases) {
  test(`reads ${name}`, () => {
    assert.equal(read([text]), expected);
  });
}

/**
 * The answer read from `text` cut in two at `cut`: pushed as two views of its bytes, or (`reuse`) copied one after
 * the other into one buffer that is overwritten after every push, as a connection reuses its read buffer.
 */
function readCut(text: string, cut: number, reuse: boolean): Read | undefined {
  const bytes = Buffer.from(text);
  const reused = Buffer.alloc(bytes.length);
  const parser = new AnswerParser();
  let answer: ParsedAnswer | undefined;
  for (const [from, to] of [[0, cut], [cut, bytes.length]] as const) {
    answer ??= parser.push(reuse ? reused.subarray(0, bytes.copy(reused, 0, from, to)) : bytes.subarray(from, to));
    if (reuse) reused.fill('#');
  }
  return readable(answer ?? parser.end());
}

const splitCases = [
  { name: 'a content-length answer', text: lengthAnswer, reuse: [false, true] },
  { name: 'a chunked answer', text: chunkedAnswer, reuse: [false, true] },
  { name: 'an answer ending with its connection', text: closeAnswer, reuse: [true] },
];

for (const { name, text, reuse } of splitCases) {
  for (const reused of reuse) {
    const how = reused ? ' pushed from one buffer that is overwritten after every push, as a connection reuses it' : ' the same wherever the bytes are split';
    test(`reads ${name}${how}`, () => {
      const whole = read([text]);
      assert.ok(whole);
      for (let cut = 1; cut < Buffer.byteLength(text); cut++) assert.equal(readCut(text, cut, reused), whole, `cut at ${cut}`);
    });
  }
}

test('reads an answer that arrives a byte at a time', () => {
  assert.equal(read([...chunkedAnswer]), read([chunkedAnswer]));
});

test('reads the next answer on the same connection after a reset', () => {
  const parser = new AnswerParser();
  parser.push(Buffer.from(lengthAnswer));
  parser.reset();
  assert.equal(readable(parser.push(Buffer.from(chunkedAnswer)))?.statusCode, 201);
});

const malformed: Array<[string, string, string]> = [
  ['a status line that is not HTTP/1.x', 'HTTP/2 200\r\n\r\n', 'invalid status line: "HTTP/2 200"'],
  ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', 'invalid header line: "broken"'],
  ['content-length that is not a number', 'HTTP/1.1 200 OK\r\ncontent-length: 1x\r\n\r\n', 'invalid content-length: "1x"'],
  ['two different content-lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n', 'invalid content-length: "2"'],
  ['a chunk size that is not hexadecimal', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n', 'invalid chunk size: "zz"'],
  ['a chunk without its line end', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}xx', 'chunk not followed by CRLF'],
];
for (const [name, text, message] of malformed) {
  test(`refuses ${name}`, () => {
    const error = (() => {
      try {
        return read([text]);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(error instanceof AnswerFormatError);
    assert.equal([error.code, error.message], ['HPE_INVALID_ANSWER', message]);
  });
}

test.run();
