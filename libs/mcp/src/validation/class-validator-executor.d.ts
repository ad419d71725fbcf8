// class-validator exports its ValidationExecutor only through the CommonJS deep path; `execute`
// takes no schema name when it validates a decorated class (Validator.coreValidate passes undefined).
declare module 'class-validator/cjs/validation/ValidationExecutor.js' {
  import type { getMetadataStorage, ValidationError, Validator, ValidatorOptions } from 'class-validator';
  export class ValidationExecutor {
    awaitingPromises: Promise<unknown>[];
    /** The storage it reads rules from: the global one, set by the constructor. */
    metadataStorage: ReturnType<typeof getMetadataStorage>;
    constructor(validator: Validator, validatorOptions?: ValidatorOptions);
    execute(object: object, targetSchema: string | undefined, validationErrors: ValidationError[]): void;
    stripEmptyErrors(errors: ValidationError[]): ValidationError[];
  }
}
