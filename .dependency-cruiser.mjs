// @ts-check
/**
 * @module dependency-cruiser config
 * The import rules of the package (the layers of the design notes, "The
 * shape to grow into"), checked by `npm run lint` through `depcruise src`. Each layer imports
 * only the layers below it; type-only imports count too
 * (`tsPreCompilationDeps: true`), because a type-only cycle still couples the
 * files it runs through.
 *
 *   bin                                   may import everything
 *   cli  models  askers  otel  express    mcp, listener, wire, core; never each other
 *   (siblings)
 *   mcp                                   listener, wire, core
 *   listener                              wire, core
 *   wire                                  core
 *   core                                  core only; no MCP SDK, express or model SDK
 *
 * Inside the core, folders import one way too (CORE_ORDER, bottom first); a
 * folder imports only folders on a lower row, never a sibling on its own row.
 * A folder-level cycle (gate <-> agents through a contract kept in agents/)
 * is what a file-level cycle check cannot see:
 *
 *   testing  index.ts                     the core's entry points
 *   agents                                Agent, ReAct
 *   tools  memory  gate                   @Tool and the registry, memories, the approval engine
 *   context  prompts  records             RunContext, prompt templates, the in-process call records
 *   options                               option checks (throw OptionsError)
 *   errors                                the error classes
 *   util  contracts  control  types  keys.ts   leaf helpers and the contracts every layer uses
 *
 * Every src/ file belongs to one of these layers, and an import must resolve
 * (an unresolved one would hide an edge from every rule).
 *
 * test/build/import-rules.test.ts cruises a scratch tree with this file, once
 * layered as allowed and once with one planted violation per rule, which
 * shows that every rule here can fail.
 */

/** The core folders and files: everything that is not a wire, serving or program layer. */
const CORE =
  "^src/(?:(?:contracts|options|tools|gate|agents|context|memory|prompts|records|control|errors|util|testing|types)/|(?:index|keys)\\.ts$)";

/**
 * The core's rows, bottom first: a folder (or top-level file) imports only
 * rows below its own. Every core entry of CORE is on exactly one row.
 */
const CORE_ORDER = [
  ["util", "contracts", "control", "types", "keys\\.ts"],
  ["errors"],
  ["options"],
  ["context", "prompts", "records"],
  ["tools", "memory", "gate"],
  ["agents"],
  ["testing", "index\\.ts"],
];

/**
 * A path pattern for core folders and files by name (`tools` is `src/tools/`,
 * `keys\\.ts` is `src/keys.ts`).
 * @param {string[]} names
 * @returns {string}
 */
function corePath(names) {
  return `^src/(${names.join("|")})(?:/|$)`;
}

/**
 * One rule per row of CORE_ORDER: its folders import no higher row and no
 * sibling on the row (`$1` is the importing folder, which may import itself).
 * @returns {import("dependency-cruiser").IForbiddenRuleType[]}
 */
function coreOrderRules() {
  return CORE_ORDER.slice(0, -1).map((row, i) => ({
    name: `core-order-${row.map((name) => name.replace(/\\.ts$/, "")).join("-")}`,
    comment: `Inside the core, ${row.join(", ").replace(/\\/g, "")} import only rows below them (${CORE_ORDER.slice(0, i).flat().join(", ").replace(/\\/g, "") || "nothing in the core"}), never ${CORE_ORDER.slice(
      i + 1,
    )
      .flat()
      .join(", ")
      .replace(/\\/g, "")}${row.length > 1 ? " or each other" : ""}; what two share moves down (a contract goes to contracts/).`,
    severity: "error",
    from: { path: corePath(row) },
    to: { path: corePath([...row, ...CORE_ORDER.slice(i + 1).flat()]), pathNot: "^src/$1(?:/|$)" },
  }));
}
/** Folders of each layer above the core. */
const WIRE = "^src/wire/";
const LISTENER = "^src/listener/";
const MCP = "^src/mcp/";
const CLI = "^src/cli/";
const MODELS = "^src/models/";
const ASKERS = "^src/askers/";
const OTEL = "^src/otel/";
const EXPRESS = "^src/express/";
const BIN = "^src/bin/";
/** Every place a file under src/ may live; a new folder joins a layer here first. */
const KNOWN = [CORE, WIRE, LISTENER, MCP, CLI, MODELS, ASKERS, OTEL, EXPRESS, BIN].join("|");

/**
 * The peers the core must not load: the MCP SDK, express and the model SDKs.
 * Matched as a resolved path anywhere under a node_modules folder (a linked or
 * hoisted install resolves outside ./node_modules) or as the bare specifier
 * of a peer that is not installed.
 */
const SERVING_AND_MODEL_PEERS =
  "(?:^|node_modules/)(?:@modelcontextprotocol/(?:sdk|server|core)|express|@types/express|@anthropic-ai/sdk|openai)(?:/|$)";

/**
 * One rule per layer: `from` may not reach any folder in `to`.
 * @param {string} name rule name shown in the lint output
 * @param {string} comment why, shown in the lint output
 * @param {string} from path pattern of the importing layer
 * @param {string[]} to path patterns of the layers it may not import
 * @returns {import("dependency-cruiser").IForbiddenRuleType}
 */
function layer(name, comment, from, to) {
  return { name, comment, severity: "error", from: { path: from }, to: { path: to.join("|") } };
}

/** Every layer above the core. */
const ABOVE_CORE = [WIRE, LISTENER, MCP, CLI, MODELS, ASKERS, OTEL, EXPRESS, BIN];

/**
 * A core entry point (`entry`) that may import from above the core only the files matching `allowed`.
 *
 * @param {string} name rule name
 * @param {string} comment what the rule keeps
 * @param {string} entry path pattern of the entry point
 * @param {string} allowed path pattern of what it may import from above the core
 * @returns {import("dependency-cruiser").IForbiddenRuleType}
 */
function entryRule(name, comment, entry, allowed) {
  return { ...layer(name, comment, entry, ABOVE_CORE), to: { path: ABOVE_CORE.join("|"), pathNot: allowed } };
}

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import cycle (type-only imports included) couples every file on it; move what two files share into a file both import.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-folder-cycle",
      comment:
        "A folder inside a layer (src/<a>/<b>) imports a folder that imports it back, type-only imports included: move what both need into a folder of its own (as mcp/peers holds the SDK loaders both mcp/serve and mcp/loopback use). Between the layers themselves (src/<a>) the layer and core-order rules below already forbid every edge back.",
      severity: "error",
      scope: "folder",
      from: { path: "^src/[^/]+/[^/]+" },
      to: { path: "^src/[^/]+/[^/]+", circular: true },
    },
    ...coreOrderRules(),
    {
      ...layer(
        "core-imports-core-only",
        "The core (contracts, options, tools, gate, agents, context, memory, prompts, control, errors, util, testing) imports no wire, listener, mcp, cli, models, askers, otel, express or bin file.",
        CORE,
        ABOVE_CORE,
      ),
      from: { path: CORE, pathNot: "^src/(?:testing/)?index\\.ts$" },
    },
    entryRule(
      "testing-entry-imports-connect-module-only",
      "The testing entry point (arc-agentkit/testing) imports from above the core only `connectModule` (mcp/di/in-memory.ts), which serves a module to an MCPClient in memory for users' tests.",
      "^src/testing/index\\.ts$",
      "^src/mcp/di/in-memory\\.ts$",
    ),
    entryRule(
      "root-exports-errors-only",
      "The root entry re-exports every error class a user may catch; from a layer above the core it imports only those leaf files (`*.error.ts`), nothing that would load that layer.",
      "^src/index\\.ts$",
      "\\.error\\.ts$",
    ),
    layer("wire-imports-core-only", "wire/ holds shared pieces both sides import downward; it imports only the core.", WIRE, [
      LISTENER,
      MCP,
      CLI,
      MODELS,
      ASKERS,
      OTEL,
      EXPRESS,
      BIN,
    ]),
    layer("listener-imports-wire-and-core", "listener/ is the one loopback listener; it imports only wire/ and the core.", LISTENER, [
      MCP,
      CLI,
      MODELS,
      ASKERS,
      OTEL,
      EXPRESS,
      BIN,
    ]),
    layer(
      "mcp-imports-listener-wire-core",
      "mcp/ imports listener/, wire/ and the core; never the CLI cognitions, models, askers, otel, express or the agentkit program.",
      MCP,
      [CLI, MODELS, ASKERS, OTEL, EXPRESS, BIN],
    ),
    layer(
      "cli-not-siblings",
      "cli/ does not import its siblings models/, askers/, otel/ and express/ (what two share moves down), nor the agentkit program.",
      CLI,
      [MODELS, ASKERS, OTEL, EXPRESS, BIN],
    ),
    layer(
      "models-not-siblings",
      "models/ does not import its siblings cli/, askers/, otel/ and express/, nor the agentkit program.",
      MODELS,
      [CLI, ASKERS, OTEL, EXPRESS, BIN],
    ),
    layer(
      "askers-not-siblings",
      "askers/ does not import its siblings cli/, models/, otel/ and express/, nor the agentkit program.",
      ASKERS,
      [CLI, MODELS, OTEL, EXPRESS, BIN],
    ),
    layer(
      "otel-not-siblings",
      "otel/ traces through the core's observer seam; it imports only the core (the wire layers call the seam, not otel/).",
      OTEL,
      [WIRE, LISTENER, MCP, CLI, MODELS, ASKERS, EXPRESS, BIN],
    ),
    layer(
      "express-not-siblings",
      "express/ (mcpRouter, the hosted module) builds on mcp/, listener/, wire/ and the core; it does not import its siblings cli/, models/, askers/ and otel/, nor the agentkit program.",
      EXPRESS,
      [CLI, MODELS, ASKERS, OTEL, BIN],
    ),
    {
      name: "core-no-serving-or-model-peer",
      comment:
        "The core works without the optional peers: it imports neither the MCP SDK (@modelcontextprotocol/sdk, /server, /core), express nor a model SDK (each is loaded behind one small module in its own layer).",
      severity: "error",
      from: { path: CORE },
      to: { path: SERVING_AND_MODEL_PEERS },
    },
    {
      name: "src-file-in-a-layer",
      comment:
        "A file under src/ outside every layer above escapes all of these rules; put it in a layer's folder, or add the folder to the config with its layer.",
      severity: "error",
      from: { path: "^src/", pathNot: KNOWN },
      to: {},
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that does not resolve would hide an edge from every rule above.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/.*\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.build.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "types", "node", "default"],
      mainFields: ["types", "module", "main"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
