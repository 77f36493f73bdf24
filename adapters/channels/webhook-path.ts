/**
 * Where the gateway takes a channel's webhooks: `/webhooks/<type>/<channel name>`, or the entry's `webhook_path` where
 * the peer runtime lets users set one (LINE). `tern status` prints the same paths.
 */
export function webhookPath(kind: string, name: string, configured?: string): string {
  if (configured && configured.trim() !== '') return `/${configured.trim().replace(/^\/+/, '')}`;
  return `/webhooks/${encodeURIComponent(kind)}/${encodeURIComponent(name)}`;
}

/** Whether an entry of this kind receives webhooks: LINE always, WhatsApp in Cloud API mode. */
export function takesWebhooks(kind: string, settings: Record<string, unknown>): boolean {
  if (kind === 'line') return true;
  return kind === 'whatsapp' && typeof settings.phone_number_id === 'string' && settings.phone_number_id !== '';
}
