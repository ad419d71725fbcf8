import { Injectable } from '@nestjs/common';
import { McpEvents, McpTool, McpToolResult } from '@kobana/nest-mcp';

/**
 * The suite's hooks for subscriptions/listen (server-stateless, SEP-2575): each announces a change
 * of its list to the open listen streams, as a server whose catalogue changed at run time would.
 */
@Injectable()
export class FixtureListenService {
  constructor(private readonly events: McpEvents) {}

  @McpTool({ name: 'test_trigger_tool_change', description: 'Announces a tool list change on the listen streams.' })
  async toolChange() {
    await this.events.toolsChanged();
    return McpToolResult.text('tools/list_changed published');
  }

  @McpTool({ name: 'test_trigger_prompt_change', description: 'Announces a prompt list change on the listen streams.' })
  async promptChange() {
    await this.events.promptsChanged();
    return McpToolResult.text('prompts/list_changed published');
  }
}
