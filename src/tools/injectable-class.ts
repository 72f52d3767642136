/**
 * @module tools/injectable-class
 * What `@Tool`, `@Resource` and `@Prompt` each do to a class, in one place:
 * check it defines its method, resolve its options, check every constructor
 * parameter can be injected, record the metadata, and register the class
 * with the container.
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
  if (missing.length) throw new DefinitionError(cls.name, "constructor", missingMetadataMessage(`${mark.decorator} on ${cls.name}`, params, missing, true));
  Reflect.defineMetadata(mark.key, meta, target);
  injectable()(target as never);
}
