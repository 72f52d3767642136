/**
 * @module tools/injectable-class
 * What `@Tool`, `@Resource` and `@Prompt` each do to a class, in one place:
 * check it defines its method, resolve its options, check every constructor
 * parameter can be injected, record the metadata, and register the class
 * with the container; and the one typed read of what a class decorator
 * recorded, behind each decorator's own reader.
 */
import "reflect-metadata";
import { injectable } from "tsyringe";
import { DefinitionError } from "../errors/tool-definition.error.js";
import { constructorParams, missingMetadataMessage, uninjectableParams } from "./constructor-params.js";

/** How one class decorator marks its classes. */
export interface ClassMark<M> {
  /** The decorator, as messages name it (`@Tool`). */
  readonly decorator: string;
  /** The method the class must define (`run`), and how the message shows it (`run(input, ctx)`). */
  readonly method: string;
  readonly signature: string;
  /** The metadata key. */
  readonly key: symbol | string;
  /** The checked metadata, from the class name (throws DefinitionError for bad options). */
  readonly meta: (className: string) => M;
}

/** Apply `mark` to `target` (see the module note). @throws DefinitionError naming the class and what is wrong. */
export function markInjectableClass<M>(target: object, mark: ClassMark<M>): void {
  const cls = target as unknown as { name: string; prototype: Record<string, unknown> };
  if (typeof cls.prototype[mark.method] !== "function") {
    throw new DefinitionError(cls.name, mark.method, `${mark.decorator} on ${cls.name}: the class must define ${mark.signature}`);
  }
  const meta = mark.meta(cls.name);
  const params = constructorParams(target as never);
  const missing = uninjectableParams(params);
  if (missing.length)
    throw new DefinitionError(cls.name, "constructor", missingMetadataMessage(`${mark.decorator} on ${cls.name}`, params, missing, true));
  Reflect.defineMetadata(mark.key, meta, target);
  injectable()(target as never);
}

/**
 * The metadata recorded under `key` on `cls` itself (not inherited), or
 * `undefined` when `cls` is not a class or carries none. Each decorator's
 * typed reader (`getToolMetadata`, ...) is this with its key and type.
 */
export function classMetadata<M>(key: symbol | string, cls: unknown): M | undefined {
  if (typeof cls !== "function") return undefined;
  return Reflect.getOwnMetadata(key, cls) as M | undefined;
}
