import { createServer, type Server } from 'node:net';
import { freePort } from '../../scripts/free-port.mjs';
import { startKaduOnFreePort, type ListeningKaduApp } from './kadu-app.js';

/**
 * A port picked free can be taken before the app binds it: the app then moves to another. Nest
 * logs each refused listen at error level (`listen EADDRINUSE`): four such lines are expected here.
 */
describe('startKaduOnFreePort', () => {
  let squatter: Server;
  let kadu: ListeningKaduApp | undefined;

  beforeAll(async () => {
    squatter = createServer((socket) => socket.end('squatter\n'));
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await kadu?.close();
    await new Promise((resolve) => squatter.close(resolve));
  });

  it('picks another port when the first was taken, and its public URL names the port it listens on', async () => {
    const taken = (squatter.address() as { port: number }).port;
    const picked: number[] = [];
    kadu = await startKaduOnFreePort({}, async () => {
      const port = picked.length === 0 ? taken : await freePort();
      picked.push(port);
      return port;
    });
    expect(picked).toHaveLength(2);
    expect(picked[0]).toBe(taken);
    expect(kadu.base).toBe(`http://127.0.0.1:${picked[1]}`);
    expect(kadu.config.publicBaseUrl).toBe(kadu.base);
    const res = await fetch(`${kadu.base}/health/live`);
    expect(res.status).toBe(200);
  });

  it("gives up after three taken ports, with listen's error", async () => {
    const taken = (squatter.address() as { port: number }).port;
    let picks = 0;
    await expect(
      startKaduOnFreePort({}, async () => {
        picks++;
        return taken;
      }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(picks).toBe(3);
  }, 30_000);
});
