import * as z from 'zod/mini';
import { secret, text } from '../fields.js';
import { optional } from '../shared.js';

const described = <T extends z.core.SomeType>(schema: T, description: string) =>
  optional(schema).check(z.describe(description));

/** A DingTalk entry's settings, as the dashboard's form shows them (`docs/channels/dingtalk.md`). */
export const dingtalkSettings = z.looseObject({
  client_id: described(text(), 'Client ID (AppKey) of the DingTalk app, from Credentials & Basic Info'),
  client_secret: described(secret(), 'Client Secret (AppSecret) of the same app'),
  robot_code: described(text(), "RobotCode of the app's robot, for OpenAPI messages and files (default: client_id)"),
  base_url: described(text(), 'A test server instead of api.dingtalk.com and oapi.dingtalk.com'),
});
