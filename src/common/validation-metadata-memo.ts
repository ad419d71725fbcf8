import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage> & { kaduMemoised?: true };
type Lookup = Storage['getTargetValidationMetadatas'];
type ValidationMetadata = ReturnType<Lookup>[number];

/** One kept answer: the options it was asked with (compared with ===) and the rules found. */
interface Answer {
  readonly schema: string;
  readonly always: boolean;
  readonly strictGroups: boolean;
  readonly metadata: ValidationMetadata[];
}

/**
 * class-validator looks a class's rules up on every `validate` by walking every class that has
 * rules (an `instanceof` per class) and filtering them again: its cost grows with the number of DTO
 * classes in the process (Kadu has dozens; it was the largest single item of a Kadu tool call).
 * The answer changes only when rules are added, so it is kept per class and options (not for
 * validation groups, which Kadu does not use) and every kept answer is dropped whenever any rule
 * is added. The grouping by property that follows each lookup is kept with it. Installed once per
 * process, on the storage every copy of class-validator shares.
 */
export function memoiseValidationMetadata(storage: Storage = getMetadataStorage() as Storage): void {
  if (storage.kaduMemoised) return;
  storage.kaduMemoised = true;
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  // Per class, its answers by options: a short list compared field by field, so a lookup builds no key.
  let answers = new Map<Function | string, Answer[]>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  let kept = new WeakSet<ValidationMetadata[]>();

  storage.addValidationMetadata = (metadata) => {
    answers = new Map();
    grouped = new WeakMap();
    kept = new WeakSet();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups?.length) return lookup(target, schema, always, strictGroups, groups);
    let byOptions = answers.get(target);
    if (byOptions) {
      for (const answer of byOptions)
        if (answer.schema === schema && answer.always === always && answer.strictGroups === strictGroups)
          return answer.metadata;
    } else answers.set(target, (byOptions = []));
    const metadata = lookup(target, schema, always, strictGroups, groups);
    byOptions.push({ schema, always, strictGroups, metadata });
    kept.add(metadata);
    return metadata;
  };
  storage.groupByPropertyName = (metadata) => {
    let byProperty = grouped.get(metadata);
    if (!byProperty) {
      byProperty = group(metadata);
      // Only kept answers are grouped once: a fresh array (a groups lookup) is grouped every time.
      if (kept.has(metadata)) grouped.set(metadata, byProperty);
    }
    return byProperty;
  };
}
