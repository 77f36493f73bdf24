import { FEISHU_MAX_LENGTH } from '../../adapters/channels/feishu/feishu.js';
import { FeishuContractEmulator } from './feishu/feishu-contract-emulator.js';
import { channelContract } from './contract/kit.js';

channelContract({
  kind: 'feishu',
  maxMessageLength: FEISHU_MAX_LENGTH,
  // A card's Markdown element reads Markdown itself; a refused card goes again as a text message.
  formatted: 'echo: **bold** and `code`',
  plain: 'echo: **bold** and `code`',
  emulator: () => FeishuContractEmulator.start(),
  lacks: {
    captions: 'a Feishu picture message carries no text',
    file_captions: 'a Feishu file message carries no text: the caption is the message after it',
    typing: 'Feishu shows bots no typing indicator (the channel reacts to the message instead)',
  },
});
