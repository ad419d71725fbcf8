// The Express-specific pieces: `@kobana/nest-mcp/express`.
export { StableExpressAdapter, type StableExpressAdapterOptions } from '../http/stable-express.adapter.js';
export type { FailedReplyBody } from '../http/turn-end-reply.js';
