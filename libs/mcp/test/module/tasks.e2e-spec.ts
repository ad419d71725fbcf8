import 'reflect-metadata';
import request from 'supertest';
import { NestFactory } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { StableExpressAdapter } from '@kobana/nest-mcp/express';
import { legacyRequest, modernRequest } from '@kobana/nest-mcp/testing';
import { ConformanceFixtureModule } from '../conformance/fixture.module.js';
import { startToolsApp, type ToolsApp } from '../fixtures/tools-app/start.js';
import { eventually } from '../support/eventually.js';
import { expectRpcError, expectRpcResult } from '../support/wire.js';

/** Issue 19: the Tasks extension in libs/mcp, over HTTP, on the conformance fixture (libs/mcp only). */
const TASKS = 'io.modelcontextprotocol/tasks';
const DECLARED = { elicitation: {}, extensions: { [TASKS]: {} } };
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

const send = (
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = DECLARED,
  headers: Record<string, string> = {},
) => {
  const r = modernRequest(method, params, { id: 'r', capabilities });
  return request(server as never)
    .post('/mcp')
    .set(r.headers)
    .set(headers)
    .send(r.body);
};
const created = async (name: string, args: Record<string, unknown> = {}) => {
  const result = expectRpcResult(await send('tools/call', { name, arguments: args }), 'r');
  expect(result.resultType).toBe('task');
  return result.taskId as string;
};
const get = async (taskId: string) => expectRpcResult(await send('tasks/get', { taskId }), 'r');

it('advertises the extension, and a tool that may answer with a task answers synchronously a request that does not declare it', async () => {
  expect(expectRpcResult(await send('server/discover', {}), 'r').capabilities).toMatchObject({
    extensions: { [TASKS]: {} },
  });
  const sync = expectRpcResult(
    await send('tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'x' } }, { elicitation: {} }),
    'r',
  );
  expect(sync).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Computed x after 0 s' }] });
  expect(sync).not.toHaveProperty('taskId');
});

it('a tool that needs a task refuses a client that cannot take one with -32021, in both eras, before running', async () => {
  const modern = await send('tools/call', { name: 'failing_job', arguments: {} }, {});
  expectRpcError(modern, 400, -32021, 'r');
  expect(modern.body.error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS]: {} } } });
  const r = legacyRequest('tools/call', { name: 'failing_job', arguments: {} }, { id: 'l' });
  expect(
    (
      await request(server as never)
        .post('/mcp')
        .set(r.headers)
        .send(r.body)
    ).body.error.code,
  ).toBe(-32021);
  const l = legacyRequest('tasks/get', { taskId: 'x' }, { id: 'l' });
  expectRpcError(
    await request(server as never)
      .post('/mcp')
      .set(l.headers)
      .send(l.body),
    200,
    -32601,
    'l',
  );
});

it('tasks/* need the extension on the request, a taskId, inputResponses for update, and Mcp-Name mirroring the taskId', async () => {
  const taskId = await created('slow_compute', { seconds: 30 });
  expectRpcError(await send('tasks/get', { taskId }, { elicitation: {} }), 400, -32021, 'r');
  // A non-string taskId cannot be mirrored in Mcp-Name: refused at the header rung.
  expectRpcError(await send('tasks/get', { taskId: 7 }, DECLARED, { 'Mcp-Name': '7' }), 400, -32020, 'r');
  expectRpcError(await send('tasks/update', { taskId }), 200, -32602, 'r');
  expectRpcError(await send('tasks/get', { taskId }, DECLARED, { 'Mcp-Name': 'another-task' }), 400, -32020, 'r');
  const missing = modernRequest('tasks/get', { taskId }, { id: 'r', capabilities: DECLARED });
  delete missing.headers['Mcp-Name'];
  expectRpcError(
    await request(server as never)
      .post('/mcp')
      .set(missing.headers)
      .send(missing.body),
    400,
    -32020,
    'r',
  );
  const unknown = await send('tasks/get', { taskId: `${taskId}x` });
  expectRpcError(unknown, 200, -32602, 'r');
  expect(unknown.body.error.message).toBe('Failed to retrieve task: Task not found');
  expect(expectRpcResult(await send('tasks/cancel', { taskId }), 'r')).toEqual({
    resultType: 'complete',
    _meta: expect.any(Object),
  });
  expect(await get(taskId)).toMatchObject({ status: 'cancelled' });
});

it('completed carries the CallToolResult (isError included), failed the JSON-RPC error only', async () => {
  const failing = await created('failing_job');
  const done = await eventually(
    'failing_job completed',
    () => get(failing),
    (t) => t.status !== 'working',
  );
  expect(done).toMatchObject({
    resultType: 'complete',
    status: 'completed',
    ttlMs: 600000,
    pollIntervalMs: 200,
    result: { isError: true, content: [{ type: 'text' }] },
  });
  const crashing = await created('protocol_error_job');
  const failed = await eventually(
    'protocol_error_job failed',
    () => get(crashing),
    (t) => t.status !== 'working',
  );
  expect(failed).toMatchObject({
    status: 'failed',
    error: { code: -32603, message: 'Internal error: the job crashed' },
  });
  expect(failed).not.toHaveProperty('result');
});

it('tasks/update passes on only answers to outstanding keys; an invalid answer leaves the request outstanding', async () => {
  const taskId = await created('confirm_delete', { filename: 'a.txt' });
  const waiting = await get(taskId);
  const [key] = Object.keys(waiting.inputRequests as object);
  expect(waiting).toMatchObject({
    status: 'input_required',
    inputRequests: { [key!]: { method: 'elicitation/create' } },
  });
  await send('tasks/update', {
    taskId,
    inputResponses: { [key!]: { action: 'accept', content: { confirm: 'yes' } }, other: { action: 'accept' } },
  });
  expect(Object.keys((await get(taskId)).inputRequests as object)).toEqual([key]);
  await send('tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { confirm: true } } } });
  expect(await get(taskId)).toMatchObject({
    status: 'completed',
    result: { content: [{ type: 'text', text: 'Deleted a.txt' }] },
  });
  // The key is satisfied: answering it again is ignored.
  expectRpcResult(await send('tasks/update', { taskId, inputResponses: { [key!]: { action: 'decline' } } }), 'r');
  expect(await get(taskId)).toMatchObject({ status: 'completed', result: { content: [{ text: 'Deleted a.txt' }] } });
});

describe('an app without a task source', () => {
  let t: ToolsApp;
  beforeAll(async () => {
    t = await startToolsApp();
  });
  afterAll(() => t.app.close());

  it('advertises no extension and has no tasks/* methods', async () => {
    const go = (method: string, params: Record<string, unknown>) => {
      const r = modernRequest(method, params, { id: 'r', capabilities: DECLARED });
      return request(t.server).post('/mcp').set(r.headers).set('Authorization', 'Bearer admin-token').send(r.body);
    };
    expect(expectRpcResult(await go('server/discover', {}), 'r').capabilities).not.toHaveProperty('extensions');
    expectRpcError(await go('tasks/get', { taskId: 'x' }), 404, -32601, 'r');
  });
});
