import asyncHooks from 'node:async_hooks';
import { syncBuiltinESMExports } from 'node:module';
import timers from 'node:timers';
import { promiseHooks } from 'node:v8';
import { type Context, ROOT_CONTEXT } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { ContextManagerChoice } from './telemetry-config.js';

/** Where a promise keeps the context that was active when it was made. */
const CONTEXT = Symbol('kadu.otel.context');
type Carrier = { [CONTEXT]?: Context };
type Callback = (...args: unknown[]) => unknown;
type Scheduler = (callback: Callback, ...rest: unknown[]) => unknown;

/** The scheduling functions whose callbacks run in the context they were scheduled in, as Node's own `AsyncLocalStorage` carries it. */
const SCHEDULERS = [
  [process, 'nextTick'],
  [globalThis, 'setTimeout'],
  [globalThis, 'setInterval'],
  [globalThis, 'setImmediate'],
  [globalThis, 'queueMicrotask'],
  [timers, 'setTimeout'],
  [timers, 'setInterval'],
  [timers, 'setImmediate'],
] as const satisfies readonly (readonly [object, string])[];

/**
 * The active OpenTelemetry context on Node 20, without Node's async hooks. Node 20's
 * `AsyncLocalStorage` (the SDK's default manager) turns on Node's promise hooks, which give every
 * promise an async id, a trigger id and a store, and dispatch to every hook: the largest part of
 * what tracing adds to a call, on the ~20 promises of Nest's and Express's pipeline
 * (bench/RESULTS.md, issue 32, "Where tracing's cost sits"). This manager keeps the active context
 * in a field; V8's own promise hooks give each promise the context active when it was made and
 * restore it around the promise's reactions (`await` included); `process.nextTick`, the timers,
 * immediates and `queueMicrotask` run their callbacks in the context they were scheduled in; and an
 * `AsyncResource` runs its callbacks in the context it was made in. With promises alone a REST
 * handler ran outside its request's span: the body parser calls it back from the request's stream
 * events through an `AsyncResource` (bench/RESULTS.md, issue 32, eighteenth and thirty-fourth passes).
 *
 * What it does not carry, where `AsyncLocalStorage` does: callbacks that native code calls back
 * (`fs.readFile(path, cb)`, `dns.lookup`, a socket's callbacks), `unhandledRejection` handlers, and
 * `AsyncResource`s of classes a module took before the SDK started (Node's `http` agent's queue of
 * requests waiting for a socket). Those run in the root context: every context set here is unset
 * when the code it was set for returns, so nothing a request set stays active after it. The app
 * uses promises for its own I/O; the instrumentations start their spans before such calls and
 * bind their emitters (`bind`, inherited). Node 22 with `--experimental-async-context-frame`, and
 * Node 24, keep `AsyncLocalStorage` without those hooks: `contextManagerFor` picks it there, and an
 * operator who needs what it carries more can choose it anywhere (`KADU_OTEL_CONTEXT_MANAGER`).
 *
 * Extends the SDK's `AsyncLocalStorageContextManager` for its `bind` of functions and event
 * emitters alone; its storage is never run (`with` and `attach` are this class's), so Node's hooks
 * stay off.
 */
export class PromiseHookContextManager extends AsyncLocalStorageContextManager {
  private current: Context = ROOT_CONTEXT;
  /** The contexts a promise reaction's `before` replaced, restored by its `after` (they nest). */
  private readonly replaced: Context[] = [];
  private stopHooks: (() => void) | undefined;
  private readonly originals: { target: object; name: string; fn: unknown }[] = [];

  override active(): Context {
    return this.current;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const previous = this.current;
    this.current = context;
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.current = previous;
    }
  }

  /**
   * Not offered: a context set for the rest of the current code, with nothing that unsets it when
   * that code returns, would stay active in whatever runs next (another request's callbacks). The
   * inherited one would turn Node's hooks on. `@opentelemetry/api` 1.9 never calls it.
   */
  override attach(): never {
    throw new Error('the promise-hook context manager has no attach(): use context.with()');
  }

  override enable(): this {
    if (this.stopHooks) return this;
    this.stopHooks = promiseHooks.createHook({
      // Most promises outside a request are made in the root context: nothing is stored on them.
      init: (promise) => {
        if (this.current !== ROOT_CONTEXT) (promise as Carrier)[CONTEXT] = this.current;
      },
      before: (promise) => {
        this.replaced.push(this.current);
        this.current = (promise as Carrier)[CONTEXT] ?? ROOT_CONTEXT;
      },
      // V8 calls `after` once for each `before`; were one missing, the stack's bottom is the root.
      after: () => {
        this.current = this.replaced.pop() ?? ROOT_CONTEXT;
      },
    }) as () => void;
    const wrappers = new Map<Scheduler, Scheduler>();
    for (const [target, name] of SCHEDULERS) this.carryThrough(target, name, wrappers);
    this.carryThroughAsyncResources();
    // ES modules that import these from `node:timers` or `node:async_hooks` see the same.
    syncBuiltinESMExports();
    return this;
  }

  override disable(): this {
    this.stopHooks?.();
    this.stopHooks = undefined;
    for (const { target, name, fn } of this.originals.splice(0).reverse())
      (target as Record<string, unknown>)[name] = fn;
    syncBuiltinESMExports();
    this.current = ROOT_CONTEXT;
    this.replaced.length = 0;
    return this;
  }

  /**
   * Replaces `target[name]` by a function that schedules the callback in the active context — one
   * per original function, so `globalThis.setTimeout === timers.setTimeout` still holds.
   */
  private carryThrough(target: object, name: string, wrappers: Map<Scheduler, Scheduler>): void {
    const scheduler = target as Record<string, Scheduler>;
    const original = scheduler[name]!;
    let carrying = wrappers.get(original);
    if (!carrying) wrappers.set(original, (carrying = this.carrying(original)));
    this.originals.push({ target, name, fn: original });
    scheduler[name] = carrying;
  }

  /** `original`, scheduling its callback in the context active when it is called. */
  private carrying(original: Scheduler): Scheduler {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the scheduler's own `this` is the caller's
    const manager = this;
    const carrying = function (this: unknown, callback: Callback, ...rest: unknown[]): unknown {
      const context = manager.current;
      if (context === ROOT_CONTEXT || typeof callback !== 'function') return original.call(this, callback, ...rest);
      // A timer's callback gets its `Timeout` (an immediate's, its `Immediate`) as `this`: kept.
      const inContext = function (this: unknown, ...args: unknown[]): unknown {
        return manager.with(context, callback, this, ...args);
      };
      return original.call(this, inContext, ...rest);
    };
    // `util.promisify.custom` and the like: `timers/promises` and `promisify(setTimeout)` keep working.
    Object.defineProperties(carrying, Object.getOwnPropertyDescriptors(original));
    return carrying;
  }

  /**
   * Libraries that call back from a stream's or a socket's events keep their caller's context with
   * an `AsyncResource` made when they were called (body-parser's raw-body, on-finished, multer,
   * Nest's interceptors): `async_hooks.AsyncResource` becomes a subclass whose `runInAsyncScope`
   * (and so its `bind`) also runs in the context active when it was made. The app's modules and
   * its dependencies read it from `async_hooks` when they load or when they call, after this (the SDK
   * starts before the app is imported: kadu-process.ts); a class some module took before then keeps
   * Node's (see the class's comment).
   */
  private carryThroughAsyncResources(): void {
    const Original = asyncHooks.AsyncResource;
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- read by the class below
    const manager = this;
    class ContextCarryingAsyncResource extends Original {
      private readonly [CONTEXT] = manager.current;

      static override bind<Func extends (...args: never[]) => unknown>(
        fn: Func,
        type?: string,
        thisArg?: ThisParameterType<Func>,
      ): Func {
        const resource = new ContextCarryingAsyncResource(type || fn.name || 'bound-anonymous-fn');
        // Node's `bind` takes the `this` too (its types here do not say so).
        return (resource.bind as (fn: Func, thisArg?: unknown) => Func).call(resource, fn, thisArg);
      }

      override runInAsyncScope<This, Result>(
        fn: (this: This, ...args: unknown[]) => Result,
        thisArg?: This,
        ...args: unknown[]
      ): Result {
        const run = super.runInAsyncScope as (fn: unknown, thisArg: unknown, ...args: unknown[]) => Result;
        return manager.with(this[CONTEXT], run, this, fn, thisArg, ...args);
      }
    }
    this.originals.push({ target: asyncHooks, name: 'AsyncResource', fn: Original });
    (asyncHooks as { AsyncResource: typeof Original }).AsyncResource = ContextCarryingAsyncResource;
  }
}

/**
 * The context manager the operator chose (telemetry-config.ts), `auto` by default:
 * `AsyncLocalStorage` where Node runs it on an async context frame (Node 24 by default, Node 22 and
 * 23 with `--experimental-async-context-frame`), which costs no promise hook; else the manager above.
 */
export function contextManagerFor(
  choice: ContextManagerChoice,
  version: string = process.versions.node,
  flags: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
): AsyncLocalStorageContextManager {
  if (choice === 'async-local-storage') return new AsyncLocalStorageContextManager();
  if (choice === 'promise-hooks') return new PromiseHookContextManager();
  const major = Number(version.split('.')[0]);
  const frames =
    (major >= 24 && !flags.includes('--no-async-context-frame')) ||
    (major >= 22 && flags.includes('--experimental-async-context-frame'));
  return frames ? new AsyncLocalStorageContextManager() : new PromiseHookContextManager();
}
