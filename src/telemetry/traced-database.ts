import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Database, Queryable } from '../db/database.js';

const tracer = trace.getTracer('kadu.database');

/**
 * Client spans for the app's SQL, on both drivers (PGlite has no instrumentation of its own):
 * `db.system.name`, the operation, and the parameterised query text — never its parameters. Only
 * inside a span (a request, an execution), like the auto-instrumentations, so the background
 * pollers do not make a root span a second.
 */
export function tracedDatabase(db: Database): Database {
  const system = db.driver === 'postgres' ? 'postgresql' : 'pglite';
  const traced = (inner: Queryable): Queryable => ({
    query: <T>(sql: string, params?: readonly unknown[]) => withSpan(system, sql, () => inner.query<T>(sql, params)),
  });
  return {
    driver: db.driver,
    query: traced(db).query,
    transaction: <T>(work: (tx: Queryable) => Promise<T>) =>
      withSpan(system, 'transaction', () => db.transaction((tx) => work(traced(tx)))),
    ping: () => db.ping(),
    close: () => db.close(),
  };
}

async function withSpan<T>(system: string, sql: string, run: () => Promise<T>): Promise<T> {
  if (!trace.getActiveSpan()) return run();
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? 'query';
  return tracer.startActiveSpan(
    operation,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': system,
        'db.operation.name': operation,
        ...(sql !== 'transaction' ? { 'db.query.text': sql.replace(/\s+/g, ' ').trim() } : {}),
      },
    },
    async (span: Span) => {
      try {
        return await run();
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
        span.setAttribute('error.type', (error as { code?: string }).code ?? (error as Error).name ?? 'Error');
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
