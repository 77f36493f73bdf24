import { MatrixHomeserver } from '../../support/matrix-homeserver.js';
import { channelContract } from '../contract/kit.js';

channelContract({
  kind: 'matrix',
  maxMessageLength: 8000,
  // Parts are counted as a user reads them: the text of the HTML.
  measure: (text) => text.replace(/<[^>]+>/g, '').length,
  formatted: 'echo: <strong>bold</strong> and <code>code</code>',
  plain: 'echo: bold and code',
  emulator: () => MatrixHomeserver.start(),
  lacks: {
    format_fallback: 'a homeserver takes any formatted_body; clients that cannot show it show the plain body',
  },
});
