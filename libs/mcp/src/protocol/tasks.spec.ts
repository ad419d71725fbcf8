import { adaptResponseForLegacyClient, adaptResultForModernClient } from './result-envelope.js';
import {
  createTaskResult,
  declaresTasks,
  detailedTask,
  readTaskParams,
  TaskIdBinder,
  tasksCapabilityRequired,
  type TaskState,
  TASKS_EXTENSION,
} from './tasks.js';

const INFO = { name: 'kadu', version: '1.0.0' };
const AT = '2026-11-30T10:00:00.000Z';
const working: TaskState = {
  id: 'job-1',
  status: 'working',
  createdAt: new Date(AT),
  lastUpdatedAt: AT,
  ttlMs: 60_000,
  pollIntervalMs: 1500,
};

describe('declaresTasks', () => {
  it('is true only for an object under extensions in this request', () => {
    expect(declaresTasks({ extensions: { [TASKS_EXTENSION]: {} } })).toBe(true);
    expect(declaresTasks({ extensions: { [TASKS_EXTENSION]: true } })).toBe(false);
    expect(declaresTasks({ extensions: {} })).toBe(false);
    expect(declaresTasks({ tasks: {} })).toBe(false);
    expect(declaresTasks(undefined)).toBe(false);
  });
});

describe('readTaskParams', () => {
  it('needs a non-empty taskId, and inputResponses as an object for tasks/update', () => {
    expect(readTaskParams('tasks/get', { taskId: 't' })).toEqual({ taskId: 't' });
    expect(readTaskParams('tasks/get', { taskId: '' })).toMatch(/taskId/);
    expect(readTaskParams('tasks/cancel', { taskId: 7 })).toMatch(/taskId/);
    expect(readTaskParams('tasks/update', { taskId: 't', inputResponses: { a: {} } })).toEqual({
      taskId: 't',
      inputResponses: { a: {} },
    });
    expect(readTaskParams('tasks/update', { taskId: 't' })).toMatch(/inputResponses/);
    expect(readTaskParams('tasks/update', { taskId: 't', inputResponses: [] })).toMatch(/inputResponses/);
  });
});

describe('task shapes', () => {
  it('CreateTaskResult is flat, with ISO timestamps and integer durations, and nothing of the detailed task', () => {
    const state: TaskState = { ...working, ttlMs: 60_000.4, statusMessage: 'Queued', result: { content: [] } };
    expect(createTaskResult('pub', state)).toEqual({
      resultType: 'task',
      taskId: 'pub',
      status: 'working',
      statusMessage: 'Queued',
      createdAt: AT,
      lastUpdatedAt: AT,
      ttlMs: 60_000,
      pollIntervalMs: 1500,
    });
  });

  it('keeps ttlMs null for unlimited and refuses a missing one or a bad status', () => {
    expect(createTaskResult('pub', { ...working, ttlMs: null }).ttlMs).toBeNull();
    expect(() => createTaskResult('pub', { ...working, ttlMs: undefined as unknown as number })).toThrow(/ttlMs/);
    expect(() => createTaskResult('pub', { ...working, ttlMs: 0 })).toThrow(/ttlMs/);
    expect(() => createTaskResult('pub', { ...working, status: 'done' as never })).toThrow(/status/);
  });

  it('tasks/get carries resultType complete and only the payload of its status', () => {
    const result = { content: [{ type: 'text', text: 'no' }], isError: true };
    expect(detailedTask('pub', { ...working, status: 'completed', result, error: { code: 1, message: 'x' } })).toEqual({
      ...createTaskResult('pub', working),
      resultType: 'complete',
      status: 'completed',
      result,
    });
    const failed = detailedTask('pub', {
      ...working,
      status: 'failed',
      error: { code: -32603, message: 'crashed' },
      result,
    });
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: 'crashed' } });
    expect(failed).not.toHaveProperty('result');
    const asks = { k1: { method: 'elicitation/create', params: {} } };
    expect(detailedTask('pub', { ...working, status: 'input_required', inputRequests: asks })).toMatchObject({
      status: 'input_required',
      inputRequests: asks,
    });
    expect(detailedTask('pub', { ...working, status: 'cancelled', inputRequests: asks })).not.toHaveProperty(
      'inputRequests',
    );
    expect(() => detailedTask('pub', { ...working, status: 'completed' })).toThrow(/CallToolResult/);
    expect(() => detailedTask('pub', { ...working, status: 'input_required', inputRequests: {} })).toThrow(
      /inputRequests/,
    );
  });

  it('-32021 names the extension in requiredCapabilities', () => {
    expect(tasksCapabilityRequired(3, 'x')).toMatchObject({
      status: 400,
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });
});

describe('the 2026 envelope around task results', () => {
  it("keeps a task's ttlMs (its lifetime, not a cache hint) on CreateTaskResult and tasks/get", () => {
    const created = adaptResultForModernClient('tools/call', createTaskResult('pub', working), INFO);
    expect(created).toMatchObject({ resultType: 'task', ttlMs: 60_000 });
    expect(created).not.toHaveProperty('cacheScope');
    expect(adaptResultForModernClient('tasks/get', detailedTask('pub', working), INFO)).toMatchObject({
      resultType: 'complete',
      ttlMs: 60_000,
    });
    expect(
      adaptResultForModernClient('tasks/get', detailedTask('pub', { ...working, ttlMs: null }), INFO).ttlMs,
    ).toBeNull();
  });

  it('refuses a task from any other method and in the 2025 era', () => {
    expect(() => adaptResultForModernClient('prompts/get', { resultType: 'task' }, INFO)).toThrow(/task/);
    expect(() => adaptResponseForLegacyClient({ resultType: 'task' })).toThrow(/2026/);
  });
});

describe('TaskIdBinder', () => {
  const binder = new TaskIdBinder(Buffer.from('secret'));

  it('opens an id minted for the same caller, on any instance with the same key', () => {
    const id = binder.mint('acme:ana', { tool: 'run.it', id: 'exe_1' });
    expect(id).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(new TaskIdBinder(Buffer.from('secret')).open('acme:ana', id)).toEqual({ tool: 'run.it', id: 'exe_1' });
  });

  it("reads another caller's id, an altered one, another key's and garbage as unknown", () => {
    const id = binder.mint('acme:ana', { tool: 't', id: 'exe_1' });
    expect(binder.open('globex:gus', id)).toBeUndefined();
    expect(binder.open('acme:bia', id)).toBeUndefined();
    const forged = Buffer.from(JSON.stringify(['t', 'exe_2'])).toString('base64url') + id.slice(id.indexOf('.'));
    expect(binder.open('acme:ana', forged)).toBeUndefined();
    expect(new TaskIdBinder(Buffer.from('other')).open('acme:ana', id)).toBeUndefined();
    for (const junk of ['', '.', 'abc', 'x.y', `${'a'.repeat(2000)}.b`, `${id}x`, `${id}=`])
      expect(binder.open('acme:ana', junk)).toBeUndefined();
  });
});
