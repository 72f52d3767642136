/** @module types/class-transformer-storage */
// class-transformer ships no typings for its CJS storage entry; class-validator-jsonschema needs it for nested DTOs.
declare module "class-transformer/cjs/storage.js" {
  import type { MetadataStorage } from "class-transformer/types/MetadataStorage.js";
  export const defaultMetadataStorage: MetadataStorage;
}
