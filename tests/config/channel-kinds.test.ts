import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as z from 'zod/mini';
import { channelKindSettings } from '../../store/config/schema/channel-kinds.js';

test('every setting of every channel kind has a description for the dashboard form', () => {
  const missing: string[] = [];
  for (const [kind, schema] of Object.entries(channelKindSettings)) {
    for (const [field, fieldSchema] of Object.entries(schema.def.shape)) {
      const description = z.globalRegistry.get(fieldSchema as z.core.$ZodType)?.description;
      if (!description) missing.push(`${kind}.${field}`);
    }
  }
  assert.equal(missing, []);
  assert.equal(Object.keys(channelKindSettings.whatsapp.def.shape), [
    'bridge_url',
    'use_native',
    'session_store_path',
    'phone_number_id',
    'access_token',
    'app_secret',
    'verify_token',
    'api_version',
    'base_url',
  ]);
  assert.equal(Object.keys(channelKindSettings.line.def.shape), [
    'channel_secret',
    'channel_access_token',
    'webhook_path',
    'base_url',
    'data_base_url',
  ]);
});

test.run();
