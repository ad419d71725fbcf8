import request from 'supertest';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { startKadu, type KaduTestApp } from '../support/kadu-app.js';
import { ERAS, type Era } from '../support/kadu-client.js';

/**
 * Issue 34 on Kadu, one regression test per field read as a string, both eras: a value whose
 * `toString`/`valueOf` are not functions is answered like a wrong string (-32602, or -32020 where
 * the 2026 Mcp-Name header mirrors the field), never -32603 or a 500; a tool argument that a DTO
 * converts (`@Type(() => Number)`) is refused like a wrong value. Each trap is JSON text, parsed by
 * the server as any client's body is (so `__proto__` stays an own key).
 */
const TRAPS = ['{"toString":false}', '{"valueOf":1,"toString":2}', '[{"toString":false}]'];
const TASKS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };
let kadu: KaduTestApp;
let token: string;

beforeAll(async () => {
  kadu = await startKadu();
  token = await kadu.token({ role: 'owner', audience: 'mcp' });
});
afterAll(() => kadu.close());

/** method, params with VALUE where the value goes, whether Mcp-Name mirrors it, whether any string is valid. */
const FIELDS: [string, string, string, { mirrored?: boolean; eras?: Era[] }][] = [
  ['tools/call name', 'tools/call', '{"name":VALUE,"arguments":{}}', { mirrored: true }],
  ['prompts/get name', 'prompts/get', '{"name":VALUE,"arguments":{}}', { mirrored: true }],
  ['resources/read uri', 'resources/read', '{"uri":VALUE}', { mirrored: true }],
  [
    'completion/complete ref.name',
    'completion/complete',
    '{"ref":{"type":"ref/prompt","name":VALUE},"argument":{"name":"task_id","value":""}}',
    {},
  ],
  [
    'completion/complete ref.uri',
    'completion/complete',
    '{"ref":{"type":"ref/resource","uri":VALUE},"argument":{"name":"id","value":""}}',
    {},
  ],
  [
    'completion/complete argument.name',
    'completion/complete',
    '{"ref":{"type":"ref/prompt","name":"kadu_run_task"},"argument":{"name":VALUE,"value":""}}',
    {},
  ],
  ['tasks/get taskId', 'tasks/get', '{"taskId":VALUE}', { mirrored: true }],
  ['tasks/update taskId', 'tasks/update', '{"taskId":VALUE,"inputResponses":{}}', { mirrored: true }],
  ['tasks/cancel taskId', 'tasks/cancel', '{"taskId":VALUE}', { mirrored: true }],
  ['tools/list cursor', 'tools/list', '{"cursor":VALUE}', {}],
  ['resources/list cursor', 'resources/list', '{"cursor":VALUE}', {}],
];

async function send(era: Era, method: string, paramsText: string, header?: string) {
  const params = JSON.parse(paramsText) as Record<string, unknown>;
  const r =
    era === '2026'
      ? modernRequest(method, params, { id: 'cv', capabilities: TASKS })
      : legacyRequest(method, params, { id: 'cv' });
  const headers: Record<string, string> = { ...r.headers };
  if (era === '2026' && header !== undefined) headers['Mcp-Name'] = header; // ASCII: no encoding needed
  const text = JSON.stringify(r.body).replace(JSON.stringify(params).slice(1, -1), paramsText.slice(1, -1));
  return request(kadu.server).post('/mcp').set(headers).set('Authorization', `Bearer ${token}`).send(text);
}
const answerOf = (res: { status: number; body: { error?: { code: number } } }) => ({
  status: res.status,
  code: res.body.error?.code ?? 'result',
});

describe.each(ERAS)('issue 34, %s era: Kadu answers a value that cannot be coerced like a wrong string', (era) => {
  for (const [name, method, params, { mirrored }] of FIELDS) {
    it.each(TRAPS)(`${name} = %s`, async (trap) => {
      const header = mirrored ? 'no-such-thing-either' : undefined;
      const wrong = await send(era, method, params.replace('VALUE', '"no-such-thing"'), header);
      const trapped = await send(era, method, params.replace('VALUE', trap), header);
      expect(trapped.status, trapped.text).toBeLessThan(500);
      expect(trapped.body.error?.code, trapped.text).not.toBe(-32603);
      expect(answerOf(trapped), trapped.text).toEqual(answerOf(wrong));
      if (mirrored && era === '2026') expect(answerOf(trapped)).toEqual({ status: 400, code: -32020 });
    });
  }

  it.each(TRAPS)('kadu_files_list limit = %s is refused like a limit that is not a number', async (trap) => {
    const call = (limit: string) =>
      send(era, 'tools/call', `{"name":"kadu_files_list","arguments":{"limit":${limit}}}`);
    const wrong = await call('"many"');
    const trapped = await call(trap);
    expect(wrong.body.result?.isError, wrong.text).toBe(true);
    expect(trapped.status, trapped.text).toBe(200);
    expect(trapped.body.result?.isError, trapped.text).toBe(true);
    expect(trapped.text).not.toContain('internal_error');
    expect(trapped.body.result.structuredContent?.errors?.[0]?.code ?? trapped.body.result.content[0].text).toBe(
      wrong.body.result.structuredContent?.errors?.[0]?.code ?? wrong.body.result.content[0].text,
    );
  });
});
