/**
 * What the host page puts on its window for a test to drive: host-entry.ts defines it in the
 * browser, and the test declares it so that the functions it passes to `page.evaluate` type-check
 * under the root tsconfig, which has no DOM library.
 */
export interface HostApi {
  /** Connects the official client as the person holding `token`. */
  hostConnect(token: string): Promise<void>;
  /** One tools/call, as the chat would make it. */
  hostCall(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Renders the app the tool's listing names, handing it the tool's input and result. */
  hostOpenApp(tool: string, args: Record<string, unknown>, result: Record<string, unknown>): Promise<string>;
  /** Every link the app asked the host to open. */
  openedLinks: string[];
}
