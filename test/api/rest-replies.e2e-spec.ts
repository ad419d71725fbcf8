import { Controller, Get, Module, Req } from '@nestjs/common';
import type { Express, Request } from 'express';
import request from 'supertest';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';

/**
 * Kadu's app asks the module's adapter to send its REST answers at the end of the event loop's turn
 * (`jsonRepliesAtTurnEnd`; the library's own suite pins how: libs/mcp/test/module/
 * json-replies-at-turn-end.e2e-spec.ts). Here: that Kadu's app does, and that a reply failing then
 * is the API's 500 envelope, naming the request as the exception filter does.
 */
const seenAtTurnEnd: boolean[][] = [];

@Controller('reply-probe')
class ReplyProbeController {
  @Get()
  probe(@Req() req: Request) {
    // Queued before the adapter's own send: what the response is once Nest's reply has returned.
    setImmediate(() => seenAtTurnEnd.push([req.res!.headersSent, req.res!.writableEnded]));
    return { data: 'probe' };
  }
}

@Module({ controllers: [ReplyProbeController] })
class ReplyProbeModule {}

let kadu: KaduTestApp;
beforeAll(async () => {
  kadu = await startKadu({}, [ReplyProbeModule]);
});
afterAll(() => kadu?.close());

describe("Kadu's REST replies", () => {
  it('are sent at the end of the turn: nothing of the answer is out when the handler has returned', async () => {
    seenAtTurnEnd.length = 0;
    const res = await request(kadu.server).get('/reply-probe');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toEqual({ data: 'probe' });
    expect(seenAtTurnEnd).toEqual([[false, false]]);
  });

  it("answer the API's 500 with the request id when the send fails then, and the app goes on serving", async () => {
    const express = kadu.app.getHttpAdapter().getInstance() as Express;
    const etag = express.get('etag fn') as unknown;
    let calls = 0;
    express.set('etag', () => {
      if (++calls === 1) throw new Error('an etag function that fails');
      return '"ok"';
    });
    try {
      const failed = await request(kadu.server).get('/reply-probe');
      expect(failed.status).toBe(500);
      // Written by the adapter after Express's send failed: the exception filter's answer would
      // go through Express's send again, and carry the etag function's second value.
      expect(failed.headers['etag']).toBeUndefined();
      const id = failed.headers['request-id'] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(failed.body).toEqual({
        status: 500,
        errors: [{ code: 'internal_error', title: 'Internal error', detail: `Request id ${id}` }],
      });
      const next = await request(kadu.server).get('/reply-probe');
      expect(next.status).toBe(200);
      expect(next.headers['etag']).toBe('"ok"');
    } finally {
      express.set('etag fn', etag);
    }
  });
});
