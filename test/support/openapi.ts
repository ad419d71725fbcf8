import type { INestApplication } from '@nestjs/common';

export type Json = Record<string, any>;

export interface DescribedOperation {
  method: string;
  path: string;
  operation: Json;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of an OpenAPI document, as `METHOD path` and its object. */
export function operationsOf(doc: Json): DescribedOperation[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] })),
  );
}

/** The routes the app really serves, read from Express's router (`:id` written `{id}`, as OpenAPI does). */
export function servedRoutes(app: INestApplication, prefix: string): string[] {
  // Express 5 keeps its router at `app.router`; each route layer has its path and methods.
  const express = app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: unknown; methods: Record<string, boolean> } }[] };
  };
  return express.router.stack.flatMap((layer) => {
    const route = layer.route;
    if (!route || typeof route.path !== 'string' || !route.path.startsWith(`${prefix}/`)) return [];
    const path = route.path.slice(prefix.length).replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    return Object.keys(route.methods).map((method) => `${method.toUpperCase()} ${path}`);
  });
}

/**
 * A schema with every `$ref` replaced by what it points at inside `root` (JSON pointers only);
 * a reference that points at nothing throws, naming it.
 */
export function inline(node: unknown, root: Json, seen: string[] = []): any {
  if (Array.isArray(node)) return node.map((item) => inline(item, root, seen));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Json;
  if (typeof $ref === 'string') {
    if (!$ref.startsWith('#/')) throw new Error(`external reference ${$ref}`);
    if (seen.includes($ref)) throw new Error(`circular reference ${$ref}`);
    const target = $ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, part) => (at && typeof at === 'object' ? (at as Json)[part] : undefined), root);
    if (target === undefined) throw new Error(`${$ref} points at nothing`);
    return inline({ ...(target as Json), ...rest }, root, [...seen, $ref]);
  }
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inline(value, root, seen)]));
}
