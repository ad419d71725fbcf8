import { TransformationType } from 'class-transformer';
import { getMetadataStorage } from 'class-validator';
import { transformerMetadata } from './transformer-storage.js';

/**
 * What the quick path knows of an input class, worked out once: whether class-transformer would
 * only copy its fields (no class-level `@Expose`/`@Exclude` strategy), and which declared fields
 * are plain — no `@Type`, `@Transform`, `@Expose` or `@Exclude`, no accessor or method of the
 * class in their place (plainToInstance skips those). A field outside `plainFields` is looked up
 * on each call, so nothing a caller names is remembered (no map grows with hostile keys).
 */
export interface InputClassPlan {
  readonly copiesFields: boolean;
  readonly plainFields: ReadonlySet<string>;
}

const plans = new WeakMap<Function, InputClassPlan>();

export function planOf(metatype: Function): InputClassPlan {
  let plan = plans.get(metatype);
  if (!plan) {
    plan = makePlan(metatype);
    plans.set(metatype, plan);
  }
  return plan;
}

function makePlan(metatype: Function): InputClassPlan {
  const copiesFields =
    transformerMetadata.getStrategy(metatype) === 'none' &&
    transformerMetadata.getExposedMetadatas(metatype).length === 0 &&
    transformerMetadata.getExcludedMetadatas(metatype).length === 0;
  const declared = getMetadataStorage()
    .getTargetValidationMetadatas(metatype, '', true, false)
    .map((m) => m.propertyName);
  return { copiesFields, plainFields: new Set(declared.filter((field) => isPlainField(metatype, field))) };
}

/** class-transformer copies this field of the class as it is (TransformOperationExecutor.transform). */
export function isPlainField(metatype: Function, field: string): boolean {
  const prototype = metatype.prototype as object;
  return (
    transformerMetadata.findTypeMetadata(metatype, field) === undefined &&
    transformerMetadata.findTransformMetadatas(metatype, field, TransformationType.PLAIN_TO_CLASS).length === 0 &&
    // An accessor or a method of the class (or of Object) is never overwritten by plainToInstance.
    !(field in prototype)
  );
}
