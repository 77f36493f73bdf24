import { randomBytes } from 'node:crypto';
import { agentHome } from '../../store/paths.js';
import { isRecord } from './arguments.js';
import { classifyFailure } from './classify.js';
import { ProviderError } from './errors.js';
import { generateResponseSchema } from './generate-content-wire.js';
import { GenerateAccumulator, generateContentBody } from './generate-content.js';
import { parseJson, postSse } from './http.js';
import { antigravityAccess, type AntigravityAccess } from './oauth/antigravity-session.js';
import { CLIENT_HEADERS, METADATA } from './oauth/google-api.js';
import { googleEndpoints } from './oauth/google.js';
import { callOf, type CallOptions, type ChatRequest, type EndpointConfig, type ProviderClient } from './provider.js';
import { parseWire, streamEndedEarly } from './wire.js';

/**
 * Google Cloud Code Assist ("antigravity", OAuth only): a generate-content request wrapped in the service's
 * envelope (project, model, request) and sent to `v1internal:streamGenerateContent`; each event wraps a
 * generate-content chunk in `response`. The token comes from `tern auth login` and is refreshed before it ends,
 * and once more when the service refuses it.
 */
export function createCloudCodeClient(endpoint: EndpointConfig, env: NodeJS.ProcessEnv = process.env): ProviderClient {
  const home = agentHome(env);
  // The entry's api_base is the Cloud Code service for the project look-up too.
  const endpoints = { ...googleEndpoints(env), cloudCodeBase: endpoint.apiBase };

  async function once(access: AntigravityAccess, request: ChatRequest, options: CallOptions) {
    const envelope = {
      project: access.project,
      model: request.model,
      request: generateContentBody(request),
      requestType: 'agent',
      userAgent: 'antigravity',
      requestId: `agent-${Date.now()}-${randomBytes(5).toString('hex')}`,
    };
    const accumulator = new GenerateAccumulator(options.onChunk);
    const call = callOf(endpoint, options, {
      url: `${endpoint.apiBase}/v1internal:streamGenerateContent?alt=sse`,
      headers: {
        ...CLIENT_HEADERS,
        authorization: `Bearer ${access.accessToken}`,
        accept: 'text/event-stream',
        'client-metadata': JSON.stringify(METADATA),
        ...request.headers,
      },
      body: envelope,
    });
    await postSse(call, (event) => {
      const json = parseJson(event.data);
      if (isRecord(json) && json.error !== undefined) throw classifyFailure(200, event.data);
      const chunk = isRecord(json) ? json.response : undefined;
      accumulator.add(parseWire(generateResponseSchema, chunk, 'cloud code chunk'));
    });
    if (accumulator.finish === undefined) throw streamEndedEarly();
    return accumulator.result();
  }

  return {
    family: 'cloud-code',
    async chat(request, options = {}) {
      const access = await antigravityAccess(home, endpoints);
      try {
        return await once(access, request, options);
      } catch (error) {
        if (!(error instanceof ProviderError) || error.status !== 401) throw error;
        // A token Google revoked before its time: refresh once, and a second refusal is the answer.
        return once(await antigravityAccess(home, endpoints, true), request, options);
      }
    },
  };
}
