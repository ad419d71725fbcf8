// The listeners of bench/listen.mjs, in their own process so that reading their streams does not
// slow the load generator's event loop (a closed-loop load generator reports its own delays as
// the server's). Driven over IPC: { open: n }, { measure: true|false }, { count: true }, { close: true } → replies.
import { request } from 'node:http';

const [url, itemsArg] = process.argv.slice(2);
const items = Number(itemsArg);
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
let measuring = false;
let latencies = [];
// Every event read since the last { count: true }, measured or not (the CPU-per-delivery window).
let delivered = 0;
let open = [];

/** One listener: a raw SSE stream following `uri`; resolves with its closer once acknowledged. */
function listen(uri) {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'subscriptions/listen',
    params: { notifications: { resourceSubscriptions: [uri] }, _meta: ENVELOPE },
  });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'subscriptions/listen',
  };
  return new Promise((resolve, reject) => {
    const req = request(`${url}/mcp`, { method: 'POST', headers, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`listen answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      let acked = false;
      res.on('data', (chunk) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = event.split('\n').find((l) => l.startsWith('data: '));
          if (!data) continue;
          const message = JSON.parse(data.slice(6));
          if (!acked && message.method === 'notifications/subscriptions/acknowledged') {
            acked = true;
            resolve(() => req.destroy());
          } else if (message.method === 'notifications/resources/updated') {
            delivered++;
            if (measuring) latencies.push(performance.timeOrigin + performance.now() - message.params._meta.sentAt);
          }
        }
      });
      res.on('error', () => undefined);
    });
    req.on('error', (error) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.end(body);
  });
}

process.on('message', async (command) => {
  if (command.open) {
    for (let n = 0; n < command.open; n += 100) {
      open.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(100, command.open - n) }, (_, k) => listen(`bench://items/${(n + k) % items}`)),
        )),
      );
    }
    process.send({ opened: open.length });
  } else if (command.count) {
    process.send({ delivered });
    delivered = 0;
  } else if (command.measure !== undefined) {
    measuring = command.measure;
    process.send({ measuring });
  } else if (command.close) {
    for (const close of open) close();
    open = [];
    process.send({ closed: true, latencies });
    latencies = [];
  }
});
process.send({ ready: true });
