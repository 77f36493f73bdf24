/** The readable session key of INTERFACES.md: `v=1|agent=…|channel=…|account=…|<dim>=<value>…`, lowercase. */
export function sessionKeyOf(parts: {
  agent: string;
  channel: string;
  account?: string;
  dimensions: Array<[string, string]>;
}): string {
  const dims = parts.dimensions.map(([name, value]) => `${name}=${value}`);
  return ['v=1', `agent=${parts.agent}`, `channel=${parts.channel}`, `account=${parts.account || 'default'}`, ...dims]
    .join('|')
    .toLowerCase();
}
