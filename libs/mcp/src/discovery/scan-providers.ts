import type { Type } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';

export interface DecoratedMethod<O> {
  readonly wrapper: InstanceWrapper;
  readonly metatype: Type;
  readonly methodName: string;
  readonly options: O;
}

/** Every method of a class provider that carries metadata `key`, in provider and method order. */
export function scanDecoratedMethods<O>(
  discovery: DiscoveryService,
  scanner: MetadataScanner,
  key: string,
): DecoratedMethod<O>[] {
  const found: DecoratedMethod<O>[] = [];
  for (const wrapper of discovery.getProviders()) {
    // Class providers only: factory and value providers have no methods to annotate.
    const metatype = wrapper.metatype;
    if (wrapper.isAlias || wrapper.inject || typeof metatype !== 'function' || !metatype.prototype) continue;
    const proto = metatype.prototype as Record<string, unknown>;
    for (const methodName of scanner.getAllMethodNames(proto)) {
      const method = proto[methodName];
      if (typeof method !== 'function') continue;
      const options: O | undefined = Reflect.getMetadata(key, method);
      if (options) found.push({ wrapper, metatype: metatype as Type, methodName, options });
    }
  }
  return found;
}
