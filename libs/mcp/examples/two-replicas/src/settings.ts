// Everything a replica is told by its environment. Every replica gets the same values, except PORT.
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set (the same value on every replica)`);
  return value;
}

const port = Number(process.env.PORT ?? 3000);

export const settings = {
  port,
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  /** Keys of this deployment in Redis: the notes under `<prefix>notes`, the MCP state under `<prefix>mcp:`. */
  prefix: process.env.REDIS_PREFIX ?? 'notes-example:',
  /** Seals cursors and request states: a round started on one replica is finished on another. */
  stateKey: required('STATE_KEY'),
  /** The balancer's URL, which approval links name (default: this replica). */
  publicBaseUrl: process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`,
};
