// The Express-specific pieces: `@kobana/nest-mcp/express`.
export { StableExpressAdapter } from '../http/stable-express.adapter.js';
