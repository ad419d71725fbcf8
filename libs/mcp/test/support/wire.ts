/** The assertions are the package's own (`@kobana/nest-mcp/testing`); the literals below pin bytes independently of it. */
export { expectRpcError, expectRpcResult } from '@kobana/nest-mcp/testing';

/** The 413 body of docs/ladder.md §2 (rungs 2 and 6) for the default 1 MiB limit, byte for byte. */
export const SEED_413_BODY =
  '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body too large (limit 1048576 bytes)"}}';

export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
