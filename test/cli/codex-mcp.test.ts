/** @module test/cli/codex-mcp.test */
import { describe, expect, it } from "vitest";
import { asCodexMcp } from "../../src/cli/index.js";
import { codexTokenEnvVar } from "../../src/wire/codex-mcp.js";
import { tomlOverride, tomlValue } from "../../src/wire/toml.js";

const httpSpec = {
  name: "engine",
  transport: "http" as const,
  url: "http://127.0.0.1:4321/mcp",
  authHeaders: { Authorization: "Bearer s3cr3t-token" },
  autoApprove: ["mcp__engine__run_check"],
  mcpNames: { run_check: "mcp__engine__run_check", deploy: "mcp__engine__deploy" },
};

describe("tomlValue", () => {
  it("encodes strings with escapes, numbers, booleans, arrays and inline tables", () => {
    expect(tomlValue('a "q" \\ b\n\t\u0001é')).toBe('"a \\"q\\" \\\\ b\\n\\t\\u0001é"');
    expect(tomlValue(3)).toBe("3");
    expect(tomlValue(0.05)).toBe("0.05");
    expect(tomlValue(-2)).toBe("-2");
    expect(tomlValue(1e20)).toBe("100000000000000000000.0");
    expect(tomlValue(Infinity)).toBe("inf");
    expect(tomlValue(Number.NaN)).toBe("nan");
    expect(tomlValue(true)).toBe("true");
    expect(tomlValue(["a", 1, [false]])).toBe('["a", 1, [false]]');
    expect(tomlValue({})).toBe("{}");
    expect(tomlValue({ Authorization: "X", "x-key.v": 2 })).toBe('{ Authorization = "X", "x-key.v" = 2 }');
  });

  it("refuses what TOML cannot say, naming the path", () => {
    expect(() => tomlValue({ a: [1, null as never] }, "k")).toThrow(
      expect.objectContaining({ code: "toml_encode", message: "k.a[1]: null cannot be written as TOML; leave the key out instead" }),
    );
    expect(() => tomlOverride("mcp_servers.my server.url", "x")).toThrow(expect.objectContaining({ code: "toml_encode" }));
    expect(tomlOverride("mcp_servers.engine.required", true)).toBe("mcp_servers.engine.required=true");
  });
});

describe("asCodexMcp", () => {
  it("projects an http spec: url, token by env var, required, per-tool approve for auto-approve tools only", () => {
    const { config, env } = asCodexMcp(httpSpec);
    expect(config).toEqual({
      "mcp_servers.engine.url": "http://127.0.0.1:4321/mcp",
      "mcp_servers.engine.bearer_token_env_var": "AGENTKIT_MCP_TOKEN_ENGINE",
      "mcp_servers.engine.required": true,
      "mcp_servers.engine.tools.run_check.approval_mode": "approve",
    });
    expect(env).toEqual({ AGENTKIT_MCP_TOKEN_ENGINE: "s3cr3t-token" });
    expect(JSON.stringify(config)).not.toContain("s3cr3t-token");
    expect(codexTokenEnvVar("my-srv")).toBe("AGENTKIT_MCP_TOKEN_MY_SRV");
  });

  it("approves requiresApproval tools on the Codex side only when the server guards them", () => {
    const spec = { ...httpSpec, requiresApproval: ["mcp__engine__deploy"] };
    expect(asCodexMcp(spec).config["mcp_servers.engine.tools.deploy.approval_mode"]).toBeUndefined();
    expect(asCodexMcp({ ...spec, guarded: true }).config).toMatchObject({
      "mcp_servers.engine.tools.run_check.approval_mode": "approve",
      "mcp_servers.engine.tools.deploy.approval_mode": "approve",
    });
  });

  it("projects auth none and extra headers without putting values in config", () => {
    expect(asCodexMcp({ ...httpSpec, authHeaders: {}, autoApprove: [] })).toEqual({
      config: { "mcp_servers.engine.url": "http://127.0.0.1:4321/mcp", "mcp_servers.engine.required": true },
      env: {},
    });
    const { config, env } = asCodexMcp({ ...httpSpec, authHeaders: { "X-Api-Key": "k1" }, autoApprove: [] });
    expect(config["mcp_servers.engine.env_http_headers"]).toEqual({ "X-Api-Key": "AGENTKIT_MCP_HEADER_ENGINE_X_API_KEY" });
    expect(env).toEqual({ AGENTKIT_MCP_HEADER_ENGINE_X_API_KEY: "k1" });
  });

  it("projects a stdio spec: command, args, env", () => {
    const { config, env } = asCodexMcp({
      ...httpSpec,
      transport: "stdio",
      url: null,
      authHeaders: {},
      stdio: { command: "/usr/bin/node", args: ["server.js"], env: { NODE_PATH: "/srv" } },
    });
    expect(config).toEqual({
      "mcp_servers.engine.command": "/usr/bin/node",
      "mcp_servers.engine.args": ["server.js"],
      "mcp_servers.engine.env": { NODE_PATH: "/srv" },
      "mcp_servers.engine.required": true,
      "mcp_servers.engine.tools.run_check.approval_mode": "approve",
    });
    expect(env).toEqual({});
  });

  it("refuses what Codex cannot address, naming it", () => {
    expect(() => asCodexMcp({ ...httpSpec, name: "my.engine" })).toThrow(
      expect.objectContaining({
        code: "codex_mcp",
        message: 'asCodexMcp: server name "my.engine" cannot be a Codex config key; use only [A-Za-z0-9_-]',
      }),
    );
    expect(() => asCodexMcp({ ...httpSpec, autoApprove: ["mcp__other__x"] })).toThrow(
      "asCodexMcp: auto-approve entry 'mcp__other__x' is not a tool of server 'engine'",
    );
    expect(() => asCodexMcp({ ...httpSpec, url: null })).toThrow("asCodexMcp: http server 'engine' has no url");
    expect(() => asCodexMcp({ ...httpSpec, transport: "stdio", url: null })).toThrow("asCodexMcp: stdio server 'engine' has no command");
  });
});
