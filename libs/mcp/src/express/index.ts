// The Express-specific pieces: `@app/mcp/express`.
export { StableExpressAdapter } from '../http/stable-express.adapter.js';
