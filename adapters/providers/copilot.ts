import type { ChatMessage } from '../../bus/index.js';
import type { CopilotConnectMode, openCopilot } from './copilot-connection.js';
import { ProviderError } from './errors.js';
import type { CallOptions, ChatRequest, EndpointConfig, ProviderClient } from './provider.js';

type SessionEvent = { type: string; data?: { content?: string; deltaContent?: string; message?: string } };

/**
 * The conversation as one prompt, as the peer runtime sends it: the Copilot session is made for this call only, so
 * it must see every earlier message. Copilot answers in text; Tern's tools are not offered to it.
 */
function promptOf(messages: ChatMessage[]): string {
  return JSON.stringify(messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })));
}

/**
 * GitHub Copilot through the Copilot CLI's headless server (JSON-RPC): one session per call with the model and
 * our system prompt, the prompt sent, the answer read from the session's events until it is idle.
 */
export function createCopilotClient(endpoint: EndpointConfig): ProviderClient {
  const mode: CopilotConnectMode = endpoint.connectMode ?? 'grpc';
  return {
    family: 'copilot',
    async chat(request: ChatRequest, options: CallOptions = {}) {
      // The JSON-RPC library loads with the first Copilot call, not with every turn.
      const { openCopilot } = await import('./copilot-connection.js');
      const link = await openCopilot(mode, endpoint.apiBase);
      try {
        return await converse(link.rpc, request, options, endpoint.firstByteTimeoutMs ?? 60_000);
      } finally {
        link.close();
      }
    },
  };
}

async function converse(
  rpc: Awaited<ReturnType<typeof openCopilot>>['rpc'],
  request: ChatRequest,
  options: CallOptions,
  waitMs: number,
) {
  let text = '';
  let sessionId: string | undefined;
  let settle: (error?: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error) : resolve());
  });
  rpc.onNotification('session.event', (note: { sessionId?: string; event?: SessionEvent }) => {
    if (note.sessionId !== sessionId || note.event === undefined) return;
    const { type, data } = note.event;
    if (type === 'assistant.message_delta' && data?.deltaContent) {
      options.onChunk?.({ kind: 'text', delta: data.deltaContent });
    } else if (type === 'assistant.message' && typeof data?.content === 'string') text = data.content;
    else if (type === 'session.idle') settle();
    else if (type === 'session.error')
      settle(new ProviderError({ code: 'unknown', message: `Copilot: ${data?.message ?? 'session error'}` }));
  });
  rpc.onClose(() => settle(new ProviderError({ code: 'network', message: 'the Copilot CLI closed the connection' })));
  const created = await rpc.sendRequest<{ sessionId: string }>('session.create', {
    model: request.model,
    ...(request.system ? { systemMessage: { mode: 'replace', content: request.system } } : {}),
    availableTools: [],
    requestPermission: false,
    streaming: options.onChunk !== undefined,
  });
  sessionId = created.sessionId;
  let timer: NodeJS.Timeout | undefined;
  const abort = () => {
    // The server would otherwise go on writing an answer nobody reads.
    void rpc.sendRequest('session.abort', { sessionId }).catch(() => undefined);
    settle(new ProviderError({ code: 'timeout', message: 'the Copilot call was stopped' }));
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await rpc.sendRequest('session.send', { sessionId, prompt: promptOf(request.messages) });
    timer = setTimeout(
      () => settle(new ProviderError({ code: 'timeout', message: `Copilot gave no answer within ${waitMs / 1000} s` })),
      waitMs,
    );
    await done;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', abort);
    await rpc.sendRequest('session.delete', { sessionId }).catch(() => undefined);
  }
  return { text, tool_calls: [], finish_reason: 'stop' };
}
