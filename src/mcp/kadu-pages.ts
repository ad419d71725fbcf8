import type { PageBrand } from '@kobana/nest-mcp';
import type { AppConfig } from '../config/app-config.js';

/** Where McpModule is mounted; its pages' stylesheet and script are under `/<path>/pages`. */
export const KADU_MCP_PATH = 'mcp';

/** Kobana's identity on every page a person sees, with a Development badge when development tokens are on. */
export function kaduPageBrand(config: AppConfig): PageBrand {
  return { name: 'Kobana', product: 'Kadu', mark: 'K', ...(config.devTokens ? { environment: 'Development' } : {}) };
}

/** The frame of Kadu's own pages (the secret entry page): the same brand and assets as the module's pages. */
export function kaduPageFrame(config: AppConfig): { brand: PageBrand; assets: string } {
  return { brand: kaduPageBrand(config), assets: `/${KADU_MCP_PATH}/pages` };
}
