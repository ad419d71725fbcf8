import request from 'supertest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/** Issue 6: the stateless multi-round-trip machinery of the 2026 era. */
let t: ToolsApp;

beforeAll(async () => {
  t = await startToolsApp();
});
afterAll(() => t.app.close());

const FORM = { elicitation: {} };
const send = (
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = FORM,
  token = 'admin-token',
) => {
  const r = modernRequest(method, params, { id: 'r', capabilities });
  return request(t.server).post('/mcp').set(r.headers).set('Authorization', `Bearer ${token}`).send(r.body);
};
const text = (result: Record<string, unknown>) => JSON.parse((result.content as { text: string }[])[0]!.text);

describe('input_required', () => {
  it('asks, then completes from the answer', async () => {
    const first = expectRpcResult(await send('tools/call', { name: 'ask_name', arguments: {} }), 'r');
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        user_name: {
          method: 'elicitation/create',
          params: { mode: 'form', message: 'What is your name?', requestedSchema: { type: 'object' } },
        },
      },
      requestState: expect.stringMatching(/^v1\./),
    });
    expect(first).not.toHaveProperty('ttlMs');
    expect(first).not.toHaveProperty('cacheScope');
    const second = expectRpcResult(
      await send('tools/call', {
        name: 'ask_name',
        arguments: {},
        requestState: first.requestState,
        inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
      }),
      'r',
    );
    expect(second.resultType).toBe('complete');
    expect(text(second)).toEqual({ greeting: 'Hello Alice' });
  });

  it('ignores unknown keys, and asks again when an answer is missing or malformed', async () => {
    const extra = await send('tools/call', {
      name: 'ask_name',
      arguments: {},
      inputResponses: { user_name: { action: 'accept', content: { name: 'Bo' } }, unknown_extra_key: { x: 1 } },
    });
    expect(text(expectRpcResult(extra, 'r'))).toEqual({ greeting: 'Hello Bo' });
    for (const inputResponses of [
      { wrong_key: { action: 'accept', content: { data: 'x' } } },
      { user_name: 12345 },
      { user_name: { action: 'maybe' } },
      { user_name: { action: 'accept', content: { name: 5 } } },
    ]) {
      expect(
        expectRpcResult(await send('tools/call', { name: 'ask_name', arguments: {}, inputResponses }), 'r').resultType,
      ).toBe('input_required');
    }
    expectRpcError(
      await send('tools/call', { name: 'ask_name', arguments: {}, inputResponses: null }),
      200,
      -32602,
      'r',
    );
  });

  it('carries the handler state through several rounds, each with a new state', async () => {
    const r1 = expectRpcResult(await send('tools/call', { name: 'two_rounds', arguments: { topic: 'paint' } }), 'r');
    const r2 = expectRpcResult(
      await send('tools/call', {
        name: 'two_rounds',
        arguments: { topic: 'paint' },
        requestState: r1.requestState,
        inputResponses: { first: { action: 'accept', content: { name: 'Ana' } } },
      }),
      'r',
    );
    expect(r2.resultType).toBe('input_required');
    expect(r2.requestState).not.toBe(r1.requestState);
    const r3 = expectRpcResult(
      await send('tools/call', {
        name: 'two_rounds',
        arguments: { topic: 'paint' },
        requestState: r2.requestState,
        inputResponses: { second: { action: 'accept', content: { name: 'blue' } } },
      }),
      'r',
    );
    expect(text(r3)).toEqual({ topic: 'paint', first: 'Ana', second: 'blue' });
  });

  it('refuses tampered, replayed, foreign, other-argument and expired states with -32602', async () => {
    const r1 = expectRpcResult(await send('tools/call', { name: 'two_rounds', arguments: { topic: 'a' } }), 'r');
    const state = r1.requestState as string;
    const answer = { first: { action: 'accept', content: { name: 'X' } } };
    const invalid = async (params: Record<string, unknown>, token?: string) => {
      const res = await send('tools/call', { name: 'two_rounds', inputResponses: answer, ...params }, FORM, token);
      expectRpcError(res, 200, -32602, 'r');
      expect(res.body.error.message).toBe('Invalid or expired requestState');
    };
    await invalid({ arguments: { topic: 'a' }, requestState: `${state}-TAMPERED` });
    await invalid({
      arguments: { topic: 'a' },
      requestState: state.slice(0, -4) + (state.endsWith('AAAA') ? 'BBBB' : 'AAAA'),
    });
    await invalid({ arguments: { topic: 'b' }, requestState: state });
    await invalid({ arguments: { topic: 'a' }, requestState: state }, 'admin2-token');
    const realNow = Date.now;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 11 * 60_000);
    try {
      await invalid({ arguments: { topic: 'a' }, requestState: state });
    } finally {
      spy.mockRestore();
    }
    expect(
      expectRpcResult(
        await send('tools/call', {
          name: 'two_rounds',
          arguments: { topic: 'a' },
          requestState: state,
          inputResponses: answer,
        }),
        'r',
      ).resultType,
    ).toBe('input_required');
    await invalid({ arguments: { topic: 'a' }, requestState: state });
  });

  it('asks only for what the envelope declared: no elicitation capability → -32021 with requiredCapabilities', async () => {
    const res = await send('tools/call', { name: 'ask_name', arguments: {} }, { sampling: {} });
    expectRpcError(res, 400, -32021, 'r');
    expect(res.body.error.data).toEqual({ requiredCapabilities: { elicitation: { form: {} } } });
  });

  it('prompts/get may answer input_required; lists never do', async () => {
    const first = expectRpcResult(await send('prompts/get', { name: 'personal_prompt' }), 'r');
    expect(first.resultType).toBe('input_required');
    const done = expectRpcResult(
      await send('prompts/get', {
        name: 'personal_prompt',
        requestState: first.requestState,
        inputResponses: { context: { action: 'accept', content: { name: 'the board' } } },
      }),
      'r',
    );
    expect(done.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write for the board.' } }]);
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      expect(expectRpcResult(await send(method, {}), 'r').resultType).toBe('complete');
    }
  });

  it('the 2025 era never gets input_required: the handler falls back', async () => {
    const r = legacyRequest('tools/call', { name: 'ask_name', arguments: {} }, { id: 'l' });
    const res = await request(t.server)
      .post('/mcp')
      .set(r.headers)
      .set('Authorization', 'Bearer admin-token')
      .send(r.body);
    const result = expectRpcResult(res, 'l');
    expect(result).not.toHaveProperty('resultType');
    expect(text(result)).toEqual({ greeting: 'Hello, whoever you are' });
  });
});
