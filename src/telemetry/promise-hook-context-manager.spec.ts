import asyncHooks, { executionAsyncId } from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs';
import { readFile as readFilePromise } from 'node:fs/promises';
import timers from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { contextManagerFor, PromiseHookContextManager } from './promise-hook-context-manager.js';

const THIS_FILE = fileURLToPath(import.meta.url);
const KEY = createContextKey('test');
const named = (name: string): Context => ROOT_CONTEXT.setValue(KEY, name);
const nameOf = (manager: PromiseHookContextManager): unknown => manager.active().getValue(KEY) ?? 'root';
const nextMacrotask = () => new Promise((resolve) => setImmediate(resolve));

describe('PromiseHookContextManager', () => {
  let manager: PromiseHookContextManager;
  const originals = {
    nextTick: process.nextTick,
    setTimeout: globalThis.setTimeout,
    timersSetTimeout: timers.setTimeout,
    AsyncResource: asyncHooks.AsyncResource,
  };
  beforeEach(() => {
    manager = new PromiseHookContextManager().enable();
  });
  afterEach(() => {
    manager.disable();
  });

  it('keeps the context across awaits, then-callbacks and promised I/O, and unsets it when the call returns', async () => {
    const seen: unknown[] = [];
    const done = manager.with(named('a'), async () => {
      seen.push(nameOf(manager));
      await null;
      seen.push(nameOf(manager));
      await readFilePromise(THIS_FILE);
      seen.push(nameOf(manager));
      await sleep(1);
      seen.push(nameOf(manager));
      return Promise.resolve().then(() => nameOf(manager));
    });
    expect(nameOf(manager)).toBe('root');
    expect(await done).toBe('a');
    expect(seen).toEqual(['a', 'a', 'a', 'a']);
    expect(nameOf(manager)).toBe('root');
  });

  it('never mixes two requests whose awaits interleave', async () => {
    const trail = (name: string) =>
      manager.with(named(name), async () => {
        const seen: unknown[] = [];
        for (let i = 0; i < 5; i++) {
          await nextMacrotask();
          seen.push(nameOf(manager));
          await null;
          seen.push(nameOf(manager));
        }
        return seen;
      });
    const [a, b] = await Promise.all([trail('a'), trail('b')]);
    expect(a).toEqual(Array(10).fill('a'));
    expect(b).toEqual(Array(10).fill('b'));
  });

  it('runs ticks, timers, immediates and microtasks in the context they were scheduled in, with their arguments', async () => {
    const seen = new Map<string, unknown>();
    const scheduled = new Promise<void>((resolve) => {
      let left = 6;
      const record = (what: string) => (arg: unknown) => {
        seen.set(what, [nameOf(manager), arg]);
        if (--left === 0) resolve();
      };
      manager.with(named('a'), () => {
        process.nextTick(record('nextTick'), 1);
        setTimeout(record('setTimeout'), 1, 2);
        timers.setTimeout(record('timers.setTimeout'), 1, 3);
        setImmediate(record('setImmediate'), 4);
        queueMicrotask(() => record('queueMicrotask')(5));
        const interval = setInterval(
          (arg: unknown) => {
            clearInterval(interval);
            record('setInterval')(arg);
          },
          1,
          6,
        );
      });
    });
    await scheduled;
    expect(Object.fromEntries(seen)).toEqual({
      nextTick: ['a', 1],
      setTimeout: ['a', 2],
      'timers.setTimeout': ['a', 3],
      setImmediate: ['a', 4],
      queueMicrotask: ['a', 5],
      setInterval: ['a', 6],
    });
    // Scheduled outside any context: the root one.
    expect(await new Promise((resolve) => setTimeout(() => resolve(nameOf(manager)), 1))).toBe('root');
  });

  it('keeps what the scheduling functions return and their promisified forms', async () => {
    const timer = manager.with(named('a'), () => setTimeout(() => undefined, 1_000));
    expect(typeof timer.unref).toBe('function');
    clearTimeout(timer);
    expect(await manager.with(named('a'), () => promisify(setTimeout)(1, 'value'))).toBe('value');
    expect(await manager.with(named('a'), () => promisify(setImmediate)('value'))).toBe('value');
    expect(() => process.nextTick('not a function' as never)).toThrow(TypeError);
    const self = await manager.with(
      named('a'),
      () =>
        new Promise((resolve) =>
          setTimeout(function (this: unknown) {
            resolve(this);
          }, 1),
        ),
    );
    expect(self?.constructor.name).toBe('Timeout');
  });

  it('runs an AsyncResource callback in the context it was made in, whoever calls it back (body parsers, on-finished)', async () => {
    const emitter = new EventEmitter();
    const seen: unknown[] = [];
    manager.with(named('a'), () => {
      const resource = new asyncHooks.AsyncResource('test');
      emitter.once('instance', () => resource.runInAsyncScope(() => seen.push(nameOf(manager))));
      emitter.once(
        'bound',
        asyncHooks.AsyncResource.bind(() => seen.push(nameOf(manager))),
      );
      // Node's `bind` takes the `this` too (its types here do not say so).
      const bindWithThis = asyncHooks.AsyncResource.bind as (
        fn: () => void,
        type: string,
        thisArg: object,
      ) => () => void;
      emitter.once(
        'bound with this',
        bindWithThis(
          function (this: { me: string }) {
            seen.push(`${String(nameOf(manager))} ${this.me}`);
          },
          'test',
          { me: 'me' },
        ),
      );
    });
    // Emitted later, from the root context (as a socket's data arrives).
    await nextMacrotask();
    expect(nameOf(manager)).toBe('root');
    manager.with(named('b'), () => {
      emitter.emit('instance');
      emitter.emit('bound');
      emitter.emit('bound with this');
    });
    expect(seen).toEqual(['a', 'a', 'a me']);
  });

  it('runs what native code calls back in the root context, never in another request’s', async () => {
    const seen = await new Promise((resolve) =>
      manager.with(named('a'), () => readFile(THIS_FILE, () => resolve(nameOf(manager)))),
    );
    expect(seen).toBe('root');
  });

  it('leaves nothing a request set active for what runs next, even after its last reaction', async () => {
    const seen = await new Promise((resolve) => {
      // Not awaited: its last reaction runs in "a", just before the file's callback comes.
      void manager.with(named('a'), async () => {
        await null;
        await Promise.reject(new Error('refused')).catch(() => undefined);
      });
      readFile(THIS_FILE, () => resolve(nameOf(manager)));
    });
    expect(seen).toBe('root');
  });

  it('keeps one function for a scheduler reachable by two names, and offers no attach()', () => {
    expect(globalThis.setTimeout).toBe(timers.setTimeout);
    expect(globalThis.setImmediate).toBe(timers.setImmediate);
    expect(() => manager.attach()).toThrow('use context.with()');
  });

  it('restores the context when the function throws', () => {
    expect(() =>
      manager.with(named('a'), () => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(nameOf(manager)).toBe('root');
  });

  it("leaves Node's own promise hooks off: no async id per promise", async () => {
    // With Node's hooks on (any AsyncLocalStorage run), each continuation runs under its promise's
    // own new async id; without them, under the id of whatever runs the microtasks.
    const ids = await manager.with(named('a'), async () => {
      await null;
      const first = executionAsyncId();
      await null;
      return [first, executionAsyncId()];
    });
    expect(ids[1]).toBe(ids[0]);
  });

  it('puts back what it replaced when disabled', async () => {
    expect(process.nextTick).not.toBe(originals.nextTick);
    expect(asyncHooks.AsyncResource).not.toBe(originals.AsyncResource);
    manager.disable();
    expect(process.nextTick).toBe(originals.nextTick);
    expect(globalThis.setTimeout).toBe(originals.setTimeout);
    expect(timers.setTimeout).toBe(originals.timersSetTimeout);
    expect(asyncHooks.AsyncResource).toBe(originals.AsyncResource);
    const after = await manager.with(named('a'), async () => {
      await null;
      return nameOf(manager);
    });
    expect(after).toBe('root');
  });
});

describe('contextManagerFor', () => {
  it.each([
    ['20.20.2', [], PromiseHookContextManager],
    ['22.23.5', [], PromiseHookContextManager],
    ['22.23.5', ['--experimental-async-context-frame'], AsyncLocalStorageContextManager],
    ['24.22.3', [], AsyncLocalStorageContextManager],
    ['24.22.3', ['--no-async-context-frame'], PromiseHookContextManager],
  ])('auto, on Node %s with %j: %o', (version, flags, kind) => {
    expect(contextManagerFor('auto', version, flags).constructor).toBe(kind);
  });

  it("an operator's choice holds on any Node", () => {
    expect(contextManagerFor('async-local-storage', '20.20.2', []).constructor).toBe(AsyncLocalStorageContextManager);
    expect(contextManagerFor('promise-hooks', '24.22.3', []).constructor).toBe(PromiseHookContextManager);
  });
});
