import { ChannelError } from '../channel.js';

interface MailError {
  code?: string;
  responseCode?: number;
  response?: string;
  authenticationFailed?: boolean;
  responseText?: string;
  message?: string;
}

/**
 * A failed SMTP send as the outbox acts on it: a 4xx reply is a deferral (tried again with backoff), a 5xx a refusal
 * (reported, never tried again), a connection that never opened certainly sent nothing. The server's reply names no
 * password; the error is built from its code and text only.
 */
export function smtpError(error: unknown): ChannelError {
  const e = error as MailError;
  const status = e.responseCode;
  const said = (e.response ?? '').slice(0, 200);
  if (status !== undefined && status >= 400 && status < 500)
    return new ChannelError('network', `the SMTP server deferred the mail (${said})`, { delivered: 'no', retry: true });
  if (status === 535 || e.code === 'EAUTH')
    return new ChannelError('unauthorized', `the SMTP server refused the login (${said || e.code})`, {
      delivered: 'no',
      retry: false,
    });
  if (status !== undefined && status >= 500)
    return new ChannelError('platform', `the SMTP server refused the mail (${said})`, {
      delivered: 'no',
      retry: false,
    });
  if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'ETIMEDOUT' || e.code === 'EDNS')
    return new ChannelError('network', `cannot reach the SMTP server (${e.code}: ${e.message ?? ''})`, {
      delivered: e.code === 'ETIMEDOUT' ? 'unknown' : 'no',
      retry: true,
    });
  return new ChannelError('network', `the SMTP send failed (${e.code ?? e.message ?? 'unknown'})`, {
    delivered: 'unknown',
    retry: false,
  });
}

/** An IMAP failure: a refused login is `unauthorized` (no restart loop helps), anything else `network`. */
export function imapError(error: unknown, doing: string): ChannelError {
  if (error instanceof ChannelError) return error;
  const e = error as MailError;
  if (e.authenticationFailed)
    return new ChannelError('unauthorized', `the IMAP server refused the login (${e.responseText ?? 'no reason'})`);
  const why = e.responseText ?? e.code ?? e.message ?? 'unknown';
  return new ChannelError('network', `cannot ${doing} over IMAP (${why})`);
}
