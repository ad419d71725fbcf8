import type { McpPrincipal } from '../auth/principal.js';
import type { McpConfig } from '../mcp-config.js';
import type { McpConfirmationText } from '../mcp.options.js';
import { redactSecrets, summarizeArguments, SUMMARY_LIMITS, truncateText } from './approval-summary.js';

const TITLE_LIMIT = 80;

/**
 * How a tool is named where a person reads (the chat's question, the page's heading): its `title`,
 * else the first sentence of its description ("Deletes a note"), else its name. Before, a tool
 * without a title read `notes_delete with {"id":"1"}.` and `notes_delete?` (issue 28, point 7).
 */
export function personTitle(tool: { name: string; title?: string; description?: unknown }): string {
  if (tool.title) return tool.title;
  const sentence = typeof tool.description === 'string' ? /^[^.!?\n]+/.exec(tool.description.trim())?.[0] : undefined;
  const trimmed = sentence?.trim();
  return trimmed && trimmed.length <= TITLE_LIMIT ? trimmed : tool.name;
}

/**
 * What the person is told a destructive call will do: the host's sentence (describeConfirmation),
 * or the title and the argument summary. The host writes it from the arguments as the summary
 * shows them, secrets redacted by the same rule (docs/security.md §Confirmation), so the chat, the
 * page and the stored record never quote what the details list hides; both texts are bounded.
 */
export async function confirmationText(
  describe: McpConfig['describeConfirmation'],
  tool: { name: string; title: string },
  args: Record<string, unknown>,
  principal: McpPrincipal | undefined,
): Promise<McpConfirmationText> {
  const described = describe
    ? await describe(tool, redactSecrets(args), principal)
    : `${tool.title} with ${JSON.stringify(summarizeArguments(args))}.`;
  const text: McpConfirmationText = typeof described === 'string' ? { message: described } : described;
  return {
    ...text,
    message: truncateText(text.message, SUMMARY_LIMITS.message),
    ...(text.undoNote ? { undoNote: truncateText(text.undoNote, SUMMARY_LIMITS.message) } : {}),
  };
}
