import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Gateway } from '../../actors/gateway/gateway.js';
import { loadConfig } from '../../store/config/index.js';
import { openGatewayLogs } from '../../store/logs/logger.js';
import { startGatewayModel, TRANSCRIPT } from '../support/gateway-model.js';
import { modelEntry } from '../support/gateway-process.js';
import { startFileApi } from '../support/telegram-file-api.js';
import { freePort } from '../support/telegram-emulator.js';
import { tempHome } from '../support/temp-home.js';

const voiceUpdate = {
  update_id: 1,
  message: {
    message_id: 5,
    date: 0,
    chat: { id: 42, type: 'private' },
    from: { id: 42, is_bot: false, username: 'alice' },
    voice: { file_id: 'abc', file_unique_id: 'u', duration: 2, mime_type: 'audio/ogg' },
  },
};

test('a voice message is downloaded, saved in the workspace and transcribed before the turn', async () => {
  const home = tempHome();
  const model = await startGatewayModel();
  const api = await startFileApi({ 'voice/abc.ogg': Buffer.from('OggS fake voice') });
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 2,
      gateway: { port: await freePort() },
      heartbeat: { enabled: false },
      agents: { defaults: { model: 'fast', transcription_model: 'fast' } },
      model_list: [modelEntry(model.url)],
      channel_list: {
        telegram: {
          enabled: true,
          settings: { token: '42:voice-token', base_url: api.url, poll_timeout_seconds: 1, allow_from: ['*'] },
        },
      },
    }),
  );
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const gateway = await Gateway.start({ loaded, env: home.env, logs });
  try {
    api.push(voiceUpdate);
    const deadline = Date.now() + 10_000;
    while (api.sent.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(api.sent, [{ chat_id: '42', text: `echo: [voice message] ${TRANSCRIPT}` }]);
    const dir = join(loaded.workspace, 'media', 'inbound');
    const [saved] = readdirSync(dir);
    assert.is(saved, '42_5-voice.ogg');
    assert.is(readFileSync(join(dir, saved!), 'utf8'), 'OggS fake voice');
  } finally {
    await gateway.stop();
    logs.close();
    await api.close();
    await model.close();
    home.remove();
  }
});

test("the peer's voice block: model_name transcribes, echo_transcription sends the transcript first", async () => {
  const home = tempHome();
  const model = await startGatewayModel();
  const api = await startFileApi({ 'voice/abc.ogg': Buffer.from('OggS fake voice') });
  writeFileSync(
    join(home.home, 'config.json'),
    JSON.stringify({
      version: 3,
      gateway: { port: await freePort() },
      heartbeat: { enabled: false },
      agents: { defaults: { model_name: 'fast' } },
      voice: { model_name: 'fast', echo_transcription: true },
      model_list: [modelEntry(model.url)],
      channel_list: {
        telegram: {
          enabled: true,
          type: 'telegram',
          settings: { token: '42:voice-token', base_url: api.url, poll_timeout_seconds: 1, allow_from: ['*'] },
        },
      },
    }),
  );
  const loaded = loadConfig({ env: home.env });
  const logs = openGatewayLogs(loaded);
  const gateway = await Gateway.start({ loaded, env: home.env, logs });
  try {
    api.push(voiceUpdate);
    const deadline = Date.now() + 10_000;
    while (api.sent.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(api.sent, [
      { chat_id: '42', text: `Transcript: ${TRANSCRIPT}` },
      { chat_id: '42', text: `echo: [voice message] ${TRANSCRIPT}` },
    ]);
  } finally {
    await gateway.stop();
    logs.close();
    await api.close();
    await model.close();
    home.remove();
  }
});

test.run();
