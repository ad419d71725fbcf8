import { Injectable } from '@nestjs/common';
import type { McpCall, McpMethodHandler } from '../call/mcp-call.js';
import { STREAM_OPENED } from '../call/mcp-call.js';
import { ResourceAccess } from '../access/resource-access.js';
import { McpRejectionError } from '../errors.js';
import { McpConfig } from '../mcp-config.js';
import {
  ErrorCode,
  invalidParams,
  offeredPart,
  parseSubscriptionFilter,
  reject,
  type SubscriptionFilter,
} from '../protocol/index.js';
import { ListenStreams } from './listen-streams.js';
import { ListenTasks } from './listen-tasks.js';

/**
 * `subscriptions/listen` (2026-07-28 only; the 2025 era keeps answering GET with 405). Everything
 * that can refuse is checked before the stream opens, so a refusal is one JSON error answer:
 * the filter, the limits, and that the principal can see every URI and task it names.
 */
@Injectable()
export class ListenHandler {
  constructor(
    private readonly config: McpConfig,
    private readonly streams: ListenStreams,
    private readonly resources: ResourceAccess,
    private readonly tasks: ListenTasks,
  ) {}

  handlers(): McpMethodHandler[] {
    // Not offered: the method stays unknown (404 −32601), as the conformance suite expects then.
    if (!this.streams.enabled) return [];
    return [{ method: 'subscriptions/listen', eras: ['modern'], handle: (call) => this.listen(call) }];
  }

  private async listen(call: McpCall): Promise<typeof STREAM_OPENED> {
    const parsed = parseSubscriptionFilter(call.params);
    if ('error' in parsed) throw new McpRejectionError(invalidParams(call.id, `Invalid params: ${parsed.error}`));
    const listen = this.config.settings.listen;
    const honoured = offeredPart(parsed.filter, listen.offer);
    const followed = (honoured.resourceSubscriptions?.length ?? 0) + (honoured.taskIds?.length ?? 0);
    const maxFollowed = this.streams.maxSubscriptionsPerStream;
    if (followed > maxFollowed) {
      throw new McpRejectionError(
        invalidParams(
          call.id,
          `Invalid params: a stream may follow at most ${maxFollowed} resource URIs and task ids; this one asks for ${followed}`,
          {
            limit: maxFollowed,
            requested: followed,
          },
        ),
      );
    }
    const principalKey = this.config.principalKey(call.principal);
    const maxStreams = this.streams.maxStreamsPerPrincipal;
    if (this.streams.countOf(principalKey) >= maxStreams)
      throw new McpRejectionError(tooManyStreams(call, maxStreams, this.streams.retryAfterSec));
    await this.checkVisible(call, honoured);
    // The checks above awaited: the count may have moved meanwhile.
    if (this.streams.countOf(principalKey) >= maxStreams)
      throw new McpRejectionError(tooManyStreams(call, maxStreams, this.streams.retryAfterSec));
    const expiresAt = call.principal?.expiresAt;
    this.streams.open({
      id: call.id,
      principalKey,
      audience: await listen.audience?.(call.principal),
      filter: honoured,
      ...(typeof expiresAt === 'number' ? { expiresAt } : {}),
      res: call.res,
    });
    return STREAM_OPENED;
  }

  /**
   * A URI is followed only if the principal could read it now: the read itself decides (catalog,
   * scopes, roles, and the app's own check such as the organisation), so another organisation's
   * resource is refused exactly like a missing one — with the read's own "Resource not found".
   */
  private async checkVisible(call: McpCall, filter: SubscriptionFilter): Promise<void> {
    for (const uri of filter.resourceSubscriptions ?? []) await this.resources.canRead(call.principal, uri, call);
    const authorizeTask = this.config.settings.listen.authorizeTask;
    for (const taskId of filter.taskIds ?? []) {
      // The app's own check when it gives one, else the module's for the task ids it minted.
      const allowed = authorizeTask
        ? await authorizeTask(call.principal, taskId)
        : this.tasks.enabled && (await this.tasks.canFollow(call.principal, taskId, call.requestId));
      if (!allowed) {
        throw new McpRejectionError(invalidParams(call.id, `Task not found: ${taskId}`, { taskId }));
      }
    }
  }
}

/** A slot frees when one of the caller's streams closes; `retryAfter` is the longest an ended one holds it. */
function tooManyStreams(call: McpCall, limit: number, retryAfter: number) {
  return reject(
    'rate_limited',
    429,
    ErrorCode.InvalidRequest,
    `Too many open subscription streams: at most ${limit} per caller; close one first`,
    call.id,
    {
      data: { limit, retry_after: retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    },
  );
}
