import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';
import * as transformerStorage from 'class-transformer/cjs/storage.js';

// class-transformer's metadata storage is only reachable through its CJS deep path. A namespace
// import works in both builds (no `import.meta`, which CommonJS output cannot contain); some ESM
// loaders (Vite) expose a CJS file's exports only under `default`.
const storageModule = transformerStorage as {
  defaultMetadataStorage?: MetadataStorage;
  default?: { defaultMetadataStorage: MetadataStorage };
};

/** class-transformer's decorators (`@Type`, `@Transform`, `@Expose`, `@Exclude`), by class. */
export const transformerMetadata: MetadataStorage =
  storageModule.defaultMetadataStorage ?? storageModule.default!.defaultMetadataStorage;
