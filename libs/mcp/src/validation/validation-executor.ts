import { getFromContainer, Validator, type ValidationError, type ValidatorOptions } from 'class-validator';
import * as executorModule from 'class-validator/cjs/validation/ValidationExecutor.js';
import { RememberedMetadata } from './remembered-metadata.js';

type ExecutorModule = typeof import('class-validator/cjs/validation/ValidationExecutor.js');
const { ValidationExecutor } =
  (executorModule as ExecutorModule & { default?: ExecutorModule }).default ?? executorModule;

/**
 * class-validator's own `validate()`, without its promise when no validator returned one: the
 * same executor, run the same way (Validator.coreValidate), whose errors are final once
 * `execute` returns if nothing is awaited. `undefined` when a validator is still pending — the
 * caller then validates the usual, asynchronous way. `validateSync` is not this: it skips async
 * validators, and drops the verdict of one that returns a promise without declaring `async`.
 */
export function validateNow(object: object, options: ValidatorOptions): ValidationError[] | undefined {
  const validator = getFromContainer(Validator);
  // A container's own Validator (useContainer) may validate differently: it is asked the usual way.
  if (validator.validate !== Validator.prototype.validate) return undefined;
  const executor = new ValidationExecutor(validator, options);
  // The class's rules from the last lookup while they are unchanged (remembered-metadata.ts).
  const remembered = RememberedMetadata.of(executor.metadataStorage);
  if (remembered) executor.metadataStorage = remembered as unknown as typeof executor.metadataStorage;
  const errors: ValidationError[] = [];
  executor.execute(object, undefined, errors);
  if (executor.awaitingPromises.length > 0) return undefined;
  return executor.stripEmptyErrors(errors);
}
