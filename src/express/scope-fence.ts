/**
 * @module express/scope-fence
 * One fence for a hosted module: which of the items it serves — tools, fixed
 * resources, resource templates, prompts, its folder of skills — a token's
 * scopes cover. The same rule decides what a token sees listed (`view`: a catalog and extras holding
 * only the covered items) and which request is refused 403
 * `insufficient_scope` before anything runs (`refusal`: a call, a read, a
 * get, a completion, a subscription — each message of a 2025 batch too).
 */
import type { Tool } from "../tools/tool.js";
import type { ServedCatalog } from "../mcp/serve/served-catalog.js";
import { ServedExtras, type ServedResource } from "../mcp/serve/served-extras.js";

/** Anything served that may declare scopes (a `Tool`, a `ServableResource`, a `ServablePrompt`). */
export interface Scoped {
  readonly scopes?: readonly string[];
}

/** True when `granted` holds every scope `item` declares (an item without scopes: any token). */
export function scopesCover(item: Scoped, granted: readonly string[]): boolean {
  return !item.scopes?.length || item.scopes.every((s) => granted.includes(s));
}

/**
 * A request the token's scopes do not cover: what it asked for (`tool 'deploy'`, `resource 'notes://1'`, `prompt 'x'`)
 * and the scopes that needs.
 */
export interface ScopeRefusal {
  readonly item: string;
  readonly scopes: readonly string[];
}

/** What one set of granted scopes sees: the covered tools and extras, and a key naming that set of items. */
export interface FencedView {
  readonly key: string;
  readonly tools: readonly Tool[];
  readonly extras: ServedExtras;
}

/** Where the skills extension serves a catalog's files (`skill://<skill>/<path>`). */
const SKILL_BASE = "skill://";

type Message = { method?: unknown; params?: Record<string, unknown> } | null;

/** The fence of one hosted router (see the module note). The catalog and extras are fixed when it is made. */
export class ScopeFence {
  /** The union of every served item's declared scopes, sorted (RFC 9728 `scopes_supported` by default). */
  readonly scopes: readonly string[];
  /** Every served resource: fixed URIs, then templates, in served order. */
  private readonly resources: readonly ServedResource[];

  constructor(
    private readonly catalog: ServedCatalog,
    private readonly extras: ServedExtras,
  ) {
    this.resources = [...extras.fixed.values(), ...extras.templates];
    const declared = [
      ...catalog.tools.map((s) => s.tool),
      ...this.resources.map((r) => r.resource),
      ...[...extras.prompts.values()].map((p) => p.prompt),
      ...(extras.skills ? [extras.skills] : []),
    ];
    this.scopes = Object.freeze([...new Set(declared.flatMap((i) => [...(i.scopes ?? [])]))].sort());
  }

  /**
   * What `granted` sees, or `undefined` when it sees everything. The view
   * keeps the served order (fixed resources before templates, as a read
   * finds them).
   */
  view(granted: readonly string[]): FencedView | undefined {
    const tools = this.catalog.tools.filter((s) => scopesCover(s.tool, granted));
    const resources = this.resources.filter((r) => scopesCover(r.resource, granted));
    const prompts = [...this.extras.prompts.values()].filter((p) => scopesCover(p.prompt, granted));
    const skills = this.extras.skills && scopesCover(this.extras.skills, granted) ? this.extras.skills : undefined;
    if (
      tools.length === this.catalog.tools.length &&
      resources.length === this.resources.length &&
      prompts.length === this.extras.prompts.size &&
      skills === this.extras.skills
    )
      return undefined;
    const key = [tools.map((s) => s.name), resources.map((r) => r.key), prompts.map((p) => p.name), skills ? ["skills"] : []]
      .map((names) => names.join("\0"))
      .join("\u0001");
    return {
      key,
      tools: tools.map((s) => s.tool),
      extras: new ServedExtras(
        resources.map((r) => r.resource),
        prompts.map((p) => p.prompt),
        skills,
      ),
    };
  }

  /**
   * The first request in `body` (one JSON-RPC message, or each message of a
   * batch) that `granted` does not cover, or `undefined`. Checked:
   * `tools/call`, `resources/read`, `resources/subscribe`, `prompts/get`,
   * `completion/complete` (its `ref`), `subscriptions/listen` (its
   * `resourceSubscriptions`), and the skills extension's `skills/list`,
   * `skills/get` and `resources/directory/read`. A request naming nothing
   * served is left to the server, which answers it as unknown; listing is
   * filtered by `view`.
   */
  refusal(body: unknown, granted: readonly string[]): ScopeRefusal | undefined {
    if (!this.scopes.length) return undefined;
    for (const m of Array.isArray(body) ? body : [body]) {
      const msg = m as Message;
      const refused = msg && typeof msg.method === "string" ? this.refusalOf(msg.method, msg.params ?? {}, granted) : undefined;
      if (refused) return refused;
    }
    return undefined;
  }

  private refusalOf(method: string, params: Record<string, unknown>, granted: readonly string[]): ScopeRefusal | undefined {
    const check = (what: string, item: Scoped | undefined): ScopeRefusal | undefined =>
      item && !scopesCover(item, granted) ? { item: what, scopes: item.scopes ?? [] } : undefined;
    const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
    switch (method) {
      case "tools/call": {
        const name = text(params.name);
        return name === undefined ? undefined : check(`tool '${name}'`, this.catalog.byName.get(name)?.tool);
      }
      case "resources/read":
      case "resources/subscribe":
        return this.resourceRefusal(text(params.uri), check);
      case "skills/list":
      case "skills/get":
      case "resources/directory/read":
        return check("the skills", this.extras.skills);
      case "prompts/get": {
        const name = text(params.name);
        return name === undefined ? undefined : check(`prompt '${name}'`, this.extras.prompts.get(name)?.prompt);
      }
      case "completion/complete": {
        const ref = (params.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
        const name = text(ref.name);
        const uri = text(ref.uri);
        if (ref.type === "ref/prompt" && name !== undefined) return check(`prompt '${name}'`, this.extras.prompts.get(name)?.prompt);
        return ref.type === "ref/resource" && uri !== undefined ? check(`resource '${uri}'`, this.extras.byKey(uri)?.resource) : undefined;
      }
      case "subscriptions/listen": {
        const uris = ((params.notifications ?? {}) as { resourceSubscriptions?: unknown }).resourceSubscriptions;
        for (const uri of Array.isArray(uris) ? uris : []) {
          const refused = this.resourceRefusal(text(uri), check);
          if (refused) return refused;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /**
   * The refusal of a request for `uri`, judged by the resource that serves it (a fixed URI first, then the templates in
   * order, as a read finds it).
   */
  private resourceRefusal(
    uri: string | undefined,
    check: (what: string, item: Scoped | undefined) => ScopeRefusal | undefined,
  ): ScopeRefusal | undefined {
    if (uri === undefined) return undefined;
    const found = this.extras.find(uri)?.served.resource;
    // A `skill://` file the module's own resources do not serve is the skills' (as a read finds it).
    return check(`resource '${uri}'`, found ?? (uri.startsWith(SKILL_BASE) ? this.extras.skills : undefined));
  }
}
