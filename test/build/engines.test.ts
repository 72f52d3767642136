/**
 * @module test/build/engines.test
 * The Node versions the package claims (`engines.node`) agree with what CI
 * runs and with what the package and its peers install on: every version
 * `.ci/run` tests satisfies the range; at the lowest version of each branch
 * of the range (e.g. 20.19.0, 22.13.0, 24.0.0), every package a user gets —
 * the dependencies and the optional peers, with everything they depend on, as
 * locked — accepts that Node (so `npm install` prints no EBADENGINE), except a
 * peer the README names with the Node it needs. And the README states the
 * range. Reads package.json, package-lock.json, .ci/run and README.md only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import semver from "semver";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const read = (file: string): string => readFileSync(join(ROOT, file), "utf8");
const PKG = JSON.parse(read("package.json")) as { engines: { node: string }; dependencies: Record<string, string>; peerDependencies: Record<string, string> };
type Locked = { version: string; engines?: { node?: string } | string[]; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
const LOCK = (JSON.parse(read("package-lock.json")) as { packages: Record<string, Locked> }).packages;
const RANGE = PKG.engines.node;
/** Peers that need a newer Node than the package's lowest: the README says so next to their install line. */
const NEWER_NODE_PEERS: Record<string, string> = { openai: "22" };

/** Where npm resolves `name` from the package installed at `from` (a lock path): its own node_modules, then each parent's. */
function resolveIn(from: string, name: string): string | undefined {
  for (let at = from; ; at = at.slice(0, Math.max(0, at.lastIndexOf("/node_modules/")))) {
    const path = `${at ? `${at}/` : ""}node_modules/${name}`;
    if (LOCK[path]) return path;
    if (!at) return undefined;
  }
}

/** Every locked package a user installing the package (and `roots`) gets, as lock paths. */
function closure(roots: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = roots.map((r) => resolveIn("", r)).filter((p): p is string => p !== undefined);
  while (queue.length > 0) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const entry = LOCK[path]!;
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
      const found = resolveIn(path, dep);
      if (found) queue.push(found);
    }
  }
  return seen;
}

/** The locked packages in `paths` whose engines.node refuses `version`, as `name@version (range)`. */
function refusing(paths: Iterable<string>, version: string): string[] {
  return [...paths].flatMap((path) => {
    const { engines, version: v } = LOCK[path]!;
    const node = Array.isArray(engines) ? undefined : engines?.node;
    return node && !semver.satisfies(version, node) ? [`${path.replace(/^.*node_modules\//, "")}@${v} (${node})`] : [];
  });
}

/** The lowest version of each `||` branch of the engines range. */
const LOWEST = new semver.Range(RANGE).set.map((branch) => semver.minVersion(branch.map((c) => c.value).join(" "))!.version);
/** The Node versions .ci/run tests: its list and the machine's own. */
const CI_VERSIONS = [...(/^NODE_VERSIONS=\(([^)]*)\)/m.exec(read(".ci/run"))?.[1] ?? "").split(/\s+/).filter(Boolean), process.versions.node];

describe("engines.node agrees with the Node versions tested and installed on", () => {
  it("every version CI runs satisfies engines.node, and the README states the range", () => {
    expect(CI_VERSIONS.length).toBeGreaterThanOrEqual(4);
    expect(CI_VERSIONS.filter((v) => !semver.satisfies(v, RANGE))).toEqual([]);
    expect(read("README.md")).toContain(`Node ${RANGE}`);
  });

  it("at the lowest version of each branch, no dependency or optional peer (nor what they bring) refuses that Node; a peer that needs newer is named in the README", () => {
    expect(LOWEST.length).toBeGreaterThanOrEqual(2);
    const deps = closure(Object.keys(PKG.dependencies));
    const peers = Object.keys(PKG.peerDependencies).filter((p) => !(p in NEWER_NODE_PEERS));
    const all = new Set([...deps, ...closure(peers)]);
    expect(all.size).toBeGreaterThan(50);
    for (const version of LOWEST) expect(refusing(all, version), `on Node ${version}`).toEqual([]);
    for (const [peer, major] of Object.entries(NEWER_NODE_PEERS)) {
      const own = closure([peer]);
      // it does need it (else it belongs with the rest) and is fine from that major on
      expect(refusing(own, LOWEST[0]!)).not.toEqual([]);
      expect(refusing(own, LOWEST.find((v) => semver.major(v) >= Number(major))!)).toEqual([]);
      expect(read("README.md")).toMatch(new RegExp(`${peer}[^\\n]*\\n?[^\\n]*needs Node ${major}`));
    }
  });
});
