import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// ajv ships CommonJS; its default exports are the classes.
const require = createRequire(import.meta.url);
const Ajv = require('ajv') as typeof import('ajv').default;
const Ajv2020 = require('ajv/dist/2020') as typeof import('ajv/dist/2020.js').default;

export type Revision = '2025-03-26' | '2025-06-18' | '2026-07-28';

type Definition = { $ref?: string; properties?: Record<string, unknown> };

/**
 * Validates results against the official JSON Schema of a revision (test/schemas/mcp/, vendored).
 * Closed at the top level: a result may carry only the fields its definition names, since 2025
 * clients reject unknown top-level fields (the reason the legacy adapter exists) and every 2026
 * field a result may carry is named in the 2026 definitions.
 */
export class ResultSchemas {
  private readonly schema: { definitions?: Record<string, Definition>; $defs?: Record<string, Definition> };
  private readonly defs: '$defs' | 'definitions';
  private readonly ajv: InstanceType<typeof Ajv>;
  private readonly validators = new Map<string, ReturnType<InstanceType<typeof Ajv>['compile']>>();

  constructor(readonly revision: Revision) {
    this.schema = JSON.parse(readFileSync(new URL(`../schemas/mcp/${revision}.schema.json`, import.meta.url), 'utf8'));
    this.defs = revision === '2026-07-28' ? '$defs' : 'definitions';
    // Formats (uri, byte, uri-template) are annotations here: no format plugin is needed to check shapes.
    const options = { strict: false, allErrors: true, validateFormats: false };
    this.ajv = revision === '2026-07-28' ? new Ajv2020(options) : new Ajv(options);
    this.ajv.addSchema(this.schema, revision);
  }

  /** The problems of `result` as a `definition` of this revision; empty when it conforms. */
  problems(definition: string, result: unknown): string[] {
    let validate = this.validators.get(definition);
    if (!validate) {
      validate = this.ajv.compile({
        allOf: [{ $ref: `${this.revision}#/${this.defs}/${definition}` }],
        propertyNames: { enum: Object.keys(this.resolve(definition).properties ?? {}) },
      });
      this.validators.set(definition, validate);
    }
    if (validate(result)) return [];
    return (validate.errors ?? []).map(
      (e) => `${definition}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }

  private resolve(name: string): Definition {
    const definition = this.schema[this.defs]?.[name];
    if (!definition) throw new Error(`${this.revision} defines no ${name}`);
    return definition.$ref ? this.resolve(definition.$ref.split('/').pop()!) : definition;
  }
}
