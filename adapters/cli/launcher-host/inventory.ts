import type { Runtime } from '../../../actors/runtime.js';
import { maskedConfig, maskUrlPassword } from '../../../store/config/index.js';
import type { InventoryKind } from '../../launcher/api/host.js';

/** The status pages' lists, as plain JSON with every secret masked. */
export function inventoryOf(runtime: Runtime, kind: Exclude<InventoryKind, 'cron'>): unknown[] | Promise<unknown[]> {
  const { config } = runtime.loaded;
  switch (kind) {
    case 'models':
      return runtime.router.describe().map((model) => ({ ...model, api_base: maskUrlPassword(model.api_base) }));
    case 'tools':
      return runtime.tools.list().map((tool) => ({ name: tool.name, description: tool.description }));
    case 'plugins':
      return runtime.plugins.load().then(() => runtime.plugins.rows());
    case 'mcp': {
      const masked = maskedConfig(config) as { tools: { mcp: { enabled: boolean; servers: Record<string, unknown> } } };
      return Object.entries(masked.tools.mcp.servers).map(([name, server]) => ({
        name,
        enabled: masked.tools.mcp.enabled,
        server,
      }));
    }
  }
}
