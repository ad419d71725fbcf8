import 'reflect-metadata';
import request from 'supertest';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { encodeHeaderValue } from '@kobana/nest-mcp/protocol/header-value.js';
import { legacyInitialize, legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { ConformanceFixtureModule } from '../conformance/fixture.module.js';

/**
 * Issue 34, one regression test per field the server reads as a string, both eras, on the
 * conformance fixture (libs/mcp only): a value whose `toString`/`valueOf` are not functions gets the
 * answer a wrong string gets (-32602, or -32020 where the 2026 Mcp-Name header mirrors the field),
 * never -32603. Each trap is JSON text, parsed by the server as any client's body is.
 */
const TRAPS = ['{"toString":false}', '{"valueOf":1,"toString":2}', '{"__proto__":{"toString":false}}'];
const TASKS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
let app: INestApplication;
let server: unknown;

beforeAll(async () => {
  app = await NestFactory.create(ConformanceFixtureModule, new StableExpressAdapter(), {
    bodyParser: false,
    logger: false,
  });
  await app.init();
  server = app.getHttpServer();
});
afterAll(() => app.close());

type Era = '2026' | '2025';
/** A field: the method, the params with `VALUE` where the value goes, and whether Mcp-Name mirrors it. */
interface Field {
  readonly method: string;
  readonly params: string;
  readonly mirrored?: boolean;
  readonly eras?: readonly Era[];
  /** Any string is valid here (a completion's typed prefix): a non-string is then plain -32602. */
  readonly anyString?: boolean;
}
const FIELDS: Record<string, Field> = {
  'tools/call name': { method: 'tools/call', params: '{"name":VALUE,"arguments":{}}', mirrored: true },
  'prompts/get name': { method: 'prompts/get', params: '{"name":VALUE}', mirrored: true },
  'resources/read uri': { method: 'resources/read', params: '{"uri":VALUE}', mirrored: true },
  'completion/complete ref.name': {
    method: 'completion/complete',
    params: '{"ref":{"type":"ref/prompt","name":VALUE},"argument":{"name":"arg1","value":"p"}}',
  },
  'completion/complete ref.uri': {
    method: 'completion/complete',
    params: '{"ref":{"type":"ref/resource","uri":VALUE},"argument":{"name":"id","value":"p"}}',
  },
  'completion/complete ref.type': {
    method: 'completion/complete',
    params: '{"ref":{"type":VALUE,"name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"p"}}',
  },
  'completion/complete argument.name': {
    method: 'completion/complete',
    params: '{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":VALUE,"value":"p"}}',
  },
  'completion/complete argument.value': {
    method: 'completion/complete',
    params:
      '{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":VALUE}}',
    anyString: true,
  },
  'tasks/get taskId': { method: 'tasks/get', params: '{"taskId":VALUE}', mirrored: true },
  'tasks/update taskId': { method: 'tasks/update', params: '{"taskId":VALUE,"inputResponses":{}}', mirrored: true },
  'tasks/cancel taskId': { method: 'tasks/cancel', params: '{"taskId":VALUE}', mirrored: true },
  'resources/subscribe uri': { method: 'resources/subscribe', params: '{"uri":VALUE}', eras: ['2025'] },
  'logging/setLevel level': { method: 'logging/setLevel', params: '{"level":VALUE}', eras: ['2025'] },
  'tools/list cursor': { method: 'tools/list', params: '{"cursor":VALUE}' },
  'prompts/list cursor': { method: 'prompts/list', params: '{"cursor":VALUE}' },
  'resources/list cursor': { method: 'resources/list', params: '{"cursor":VALUE}' },
  'resources/templates/list cursor': { method: 'resources/templates/list', params: '{"cursor":VALUE}' },
};
const WRONG_STRING = '"no-such-thing"';

/** Sends `method` with params text; in 2026 with Mcp-Name `header` when given (as a client that sends one). */
async function send(era: Era, method: string, paramsText: string, header?: string) {
  const params = JSON.parse(paramsText) as Record<string, unknown>;
  const r =
    era === '2026'
      ? modernRequest(method, params, { id: 'cv', capabilities: TASKS })
      : legacyRequest(method, params, { id: 'cv' });
  const headers: Record<string, string> = { ...r.headers };
  if (era === '2026' && header !== undefined) headers['Mcp-Name'] = encodeHeaderValue(header);
  // The body is re-sent as text with the value spliced in, so that `__proto__` stays an own key.
  const text = JSON.stringify(r.body).replace(JSON.stringify(params).slice(1, -1), paramsText.slice(1, -1));
  return request(server as never)
    .post('/mcp')
    .set(headers)
    .send(text);
}
const answerOf = (res: { status: number; body: { error?: { code: number }; result?: unknown } }) => ({
  status: res.status,
  code: res.body.error?.code ?? 'result',
});

describe.each(['2026', '2025'] as const)(
  'issue 34, %s era: a value that cannot be coerced answers like a wrong string',
  (era) => {
    for (const [name, field] of Object.entries(FIELDS)) {
      if (field.eras && !field.eras.includes(era)) continue;
      it.each(TRAPS)(`${name} = %s`, async (trap) => {
        const header = field.mirrored ? 'no-such-thing-either' : undefined;
        const wrong = await send(era, field.method, field.params.replace('VALUE', WRONG_STRING), header);
        const trapped = await send(era, field.method, field.params.replace('VALUE', trap), header);
        expect(trapped.status, trapped.text).toBeLessThan(500);
        expect(trapped.body.error?.code, trapped.text).not.toBe(-32603);
        if (field.anyString) {
          expect(answerOf(wrong), wrong.text).toEqual({ status: 200, code: 'result' });
          expect(answerOf(trapped), trapped.text).toEqual({ status: 200, code: -32602 });
        } else expect(answerOf(trapped), trapped.text).toEqual(answerOf(wrong));
        if (field.mirrored && era === '2026') expect(answerOf(trapped)).toEqual({ status: 400, code: -32020 });
        // Without the header the 2026 answer is the same refusal (header_missing), still no fault.
        if (field.mirrored && era === '2026') {
          const bare = await send(era, field.method, field.params.replace('VALUE', trap));
          expect(answerOf(bare), bare.text).toEqual({ status: 400, code: -32020 });
          expect(bare.body.error.message, bare.text).toContain(
            JSON.parse(trap).toString === false ? '{"toString":false}' : '{',
          );
        }
      });
    }

    it.each(TRAPS)('initialize protocolVersion = %s (2025) is answered like an unknown version', async (trap) => {
      if (era === '2026') return;
      const r = legacyInitialize('1999-01-01');
      const text = JSON.stringify(r.body).replace('"1999-01-01"', trap);
      const res = await request(server as never)
        .post('/mcp')
        .set(r.headers)
        .send(text);
      const wrong = await request(server as never)
        .post('/mcp')
        .set(r.headers)
        .send(r.body);
      expect(answerOf(res), res.text).toEqual(answerOf(wrong));
    });
  },
);
