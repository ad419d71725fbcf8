import type { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type ValidationMetadata = ReturnType<Storage['getTargetValidationMetadatas']>[number];
type Grouped = ReturnType<Storage['groupByPropertyName']>;
/** Where class-validator keeps each class's rules (a private field of its storage). */
type Rules = Map<Function | string, ValidationMetadata[]>;

/** One class's rules as the storage answered them, and what that answer depended on. */
interface Answer {
  readonly always: boolean;
  readonly strictGroups: boolean;
  readonly classes: number;
  /** The rule arrays of the class and of its ancestors, with their lengths then. */
  readonly sources: readonly (readonly [ValidationMetadata[] | undefined, number])[];
  readonly metadatas: ValidationMetadata[];
  readonly grouped: Grouped;
}

/**
 * class-validator's storage as the module's quick path hands it to the executor: its two lookups
 * of a class's rules, made on every `validate` (a filter of the class's rules and an `instanceof`
 * per class that has any, then a grouping by property), are answered from the last answer while
 * the rules it came from are unchanged. The storage itself is not touched (Kadu patches it for its
 * own process, src/common/validation-metadata-memo.ts; an adopter's app is left as it is).
 *
 * Rules are only ever added (`addValidationMetadata` pushes onto a class's array or adds a class),
 * so an answer still holds while the number of classes and the length of every array it read are
 * the same. Validation groups and schemas are asked of the storage every time.
 */
export class RememberedMetadata {
  private readonly answers = new WeakMap<Function, Answer>();
  /** The answer last given: the executor groups it right after asking. */
  private last?: Answer;

  private constructor(
    private readonly storage: Storage,
    private readonly rules: Rules,
  ) {}

  private static readonly views = new WeakMap<Storage, RememberedMetadata | null>();

  /** The view of `storage`, or null when its rules are not kept as this class reads them. */
  static of(storage: Storage): RememberedMetadata | null {
    let view = RememberedMetadata.views.get(storage);
    if (view === undefined) {
      const rules = (storage as unknown as { validationMetadatas?: unknown }).validationMetadatas;
      view = rules instanceof Map ? new RememberedMetadata(storage, rules as Rules) : null;
      RememberedMetadata.views.set(storage, view);
    }
    return view;
  }

  get hasValidationMetaData(): boolean {
    return this.storage.hasValidationMetaData;
  }

  getTargetValidationMetadatas(
    target: Function,
    schema: string | undefined,
    always: boolean,
    strictGroups: boolean,
    groups?: string[],
  ): ValidationMetadata[] {
    if (schema !== undefined || groups?.length || typeof target !== 'function')
      return this.storage.getTargetValidationMetadatas(target, schema!, always, strictGroups, groups);
    const kept = this.answers.get(target);
    if (kept && kept.always === always && kept.strictGroups === strictGroups && this.holds(kept)) {
      this.last = kept;
      return kept.metadatas;
    }
    const answer = this.answer(target, always, strictGroups);
    this.answers.set(target, answer);
    this.last = answer;
    return answer.metadatas;
  }

  groupByPropertyName(metadatas: ValidationMetadata[]): Grouped {
    // The same array is grouped the same way: the kept answer's arrays are never changed (the
    // storage builds a new one per lookup, and the executor only reads it).
    return this.last?.metadatas === metadatas ? this.last.grouped : this.storage.groupByPropertyName(metadatas);
  }

  getTargetValidatorConstraints(target: Function): ReturnType<Storage['getTargetValidatorConstraints']> {
    return this.storage.getTargetValidatorConstraints(target);
  }

  private answer(target: Function, always: boolean, strictGroups: boolean): Answer {
    const { rules } = this;
    // The arrays the storage reads for this class: its own and every ancestor's (an `instanceof` each).
    const sources: [ValidationMetadata[] | undefined, number][] = [];
    const own = rules.get(target);
    sources.push([own, own?.length ?? 0]);
    for (const [key, value] of rules) {
      if (typeof key === 'function' && target.prototype instanceof key) sources.push([value, value.length]);
    }
    const metadatas = this.storage.getTargetValidationMetadatas(target, undefined!, always, strictGroups, undefined);
    return {
      always,
      strictGroups,
      classes: rules.size,
      sources,
      metadatas,
      grouped: this.storage.groupByPropertyName(metadatas),
    };
  }

  private holds(answer: Answer): boolean {
    if (this.rules.size !== answer.classes) return false;
    for (const [rules, length] of answer.sources) if ((rules?.length ?? 0) !== length) return false;
    return true;
  }
}
