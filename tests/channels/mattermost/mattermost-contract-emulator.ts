// The loopback Mattermost server as the channel contract kit sees it: direct channels with users, a thread in an
// open channel, the bot's posts with their edits, dropped WebSockets and held REST answers.
import type { ContractEmulator, Conversation, SentMessage } from '../contract/emulator.js';
import { MattermostServer, type Post } from '../../support/mattermost-server.js';

function asSent(mm: MattermostServer, post: Post): SentMessage {
  const file = post.file_ids?.[0] ? mm.files.get(post.file_ids[0]) : undefined;
  return {
    id: post.id,
    text: post.message,
    edits: [...post.edits],
    at: post.create_at,
    ...(file ? { file: { name: file.name, bytes: file.bytes, caption: post.message } } : {}),
  };
}

export class MattermostContractEmulator implements ContractEmulator {
  private constructor(readonly mm: MattermostServer) {}

  static async start(): Promise<MattermostContractEmulator> {
    return new MattermostContractEmulator(await MattermostServer.start());
  }

  settings(): Record<string, unknown> {
    return { server_url: this.mm.url, token: this.mm.token };
  }

  secrets(): string[] {
    return [this.mm.token];
  }

  private conversation(name: string, kind: 'D' | 'O'): Conversation {
    const user = this.mm.user(name);
    // A thread hangs under a post made before the bot connected; the user's messages are replies in it.
    const root = kind === 'O' ? this.mm.rootPost(user.channelId) : undefined;
    const said = new Map<string, Post>();
    return {
      sender: user.id,
      say: async (text) => {
        // The server sends events only to connected clients.
        await this.mm.online();
        const post = this.mm.say(user, user.channelId, text, kind, root ?? '');
        said.set(post.id, post);
        return { id: post.id };
      },
      sendImage: async (bytes, caption) => {
        await this.mm.online();
        const file = { bytes, name: 'picture.png', mime: 'image/png' };
        const post = this.mm.sayWithFile(user, user.channelId, file, caption, kind, root ?? '');
        said.set(post.id, post);
        return { id: post.id };
      },
      sendVoice: async (bytes) => {
        await this.mm.online();
        const file = { bytes, name: 'voice.ogg', mime: 'audio/ogg' };
        const post = this.mm.sayWithFile(user, user.channelId, file, '', kind, root ?? '');
        said.set(post.id, post);
        return { id: post.id };
      },
      redeliver: async ({ id }) => {
        const post = said.get(id);
        if (!post) throw new Error(`no post ${id} was said here`);
        await this.mm.online();
        this.mm.repost(user, post, kind);
      },
      sent: () => this.mm.botPosts(user.channelId, root).map((post) => asSent(this.mm, post)),
      typing: () => this.mm.typing.get(user.channelId) ?? 0,
    };
  }

  direct(name: string): Conversation {
    return this.conversation(name, 'D');
  }

  thread(name: string): Conversation {
    return this.conversation(name, 'O');
  }

  rateLimitSends(count: number, retryAfterSeconds: number): void {
    this.mm.rateLimitPosts(count, retryAfterSeconds);
  }

  rateLimited(): number[] {
    return this.mm.limited;
  }

  outage(ms: number): Promise<void> {
    return this.mm.outage(ms);
  }

  connections(): number {
    return this.mm.connections();
  }

  holdSendAnswers(): { held(): number; release(): void } {
    return this.mm.holdSendAnswers();
  }

  close(): Promise<void> {
    return this.mm.close();
  }
}
