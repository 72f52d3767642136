/**
 * @module bin/help
 * The `--help` text of `agentkit` and of each command.
 */

/** `agentkit --help`. */
export const MAIN_HELP = `agentkit — serve an @McpServer module to Claude Code or Codex, and inspect any MCP server

Usage:
  agentkit init [dir]                             write a new project (a @Tool, a module, a test) into a new or empty dir
  agentkit serve <module-file> [options]          serve a built @McpServer module
  agentkit host <module-file> --port N --resource URL --issuer URL   host it off loopback behind OAuth (a fleet)
  agentkit host <module-file> --port N --dev                         the same on this machine, tokens issued in process
  agentkit inspect [options] -- <command...>      list a stdio server's tools, resources, prompts
  agentkit inspect --url URL [--header K:V]...    the same for a streamable HTTP server (or --header-env K=VAR)
  agentkit call <tool> --args '{...}' (-- <command...> | --url URL | --mcp-config FILE)   call one tool
  agentkit login <url> [--scope S]...             log in to an MCP server behind OAuth; tokens kept 0600
  agentkit approve --web|--tty -- claude -p "..."   answer a headless claude run's permission prompts
  agentkit inbox migrate <postgres-url>          create the shared approval inbox's tables (once per database)
  agentkit inbox serve --store <postgres-url>    the approval page alone, for workers on other machines
  agentkit runs --store <postgres-url>           list the durable agent runs a store holds

Options for every command:
  -h, --help      this text (agentkit <command> --help for the command's)
  --verbose       on failure, print the stack and the server's stderr tail
  --version       print the package version

Exit codes: 0 ok, 1 a failure at run time (the message says what to do), 2 a command line that cannot run as written.
`;

/** `agentkit serve --help`. */
export const SERVE_HELP = `Usage: agentkit serve <module-file> [options]

Imports a built JavaScript module file (resolved against the current directory),
picks its @McpServer-decorated export, bootstraps it and serves its tools until
SIGINT or SIGTERM; then stops cleanly (listener closed, config files removed)
and exits 0.

Options:
  --export <Name>         the export to serve when the file has several @McpServer classes
  --transport <http|stdio>
                          http (default): listen on 127.0.0.1 with a generated bearer
                            token and print the line to paste into Claude Code (or Codex)
                          stdio: be the child a CLI spawns — JSON-RPC on stdin/stdout,
                            all human output on stderr; exits when stdin closes
  --timeout-ms <N>        per-call deadline of the served tools (default: the module's, else none)
  --write-mcp-json <PATH> also write Claude's {"mcpServers": ...} document to PATH (mode 0600;
                            it holds the token; removed on stop). http only
  --codex                 print the Codex form: a 0600 env file holding the token, and the
                            'codex exec -c ...' overrides (the token never appears in argv)
  --watch                 watch the module file's directory; after a rebuild (run tsc --watch
                            beside it) restart the module in place: same port and URL, same
                            config path (rewritten with a new token), so the printed line
                            stays right. A build that fails to load keeps the old one. http only
  --approve <tty|web|inbox>  answer the module's approval prompts (its approval server and its
                            server-side guard) on this terminal, on a page in the browser
                            (the one-time login URL is printed once, on stderr; Enter on
                            this terminal prints a fresh one), or through a shared
                            inbox whose page runs elsewhere (agentkit inbox serve). http only
  --inbox-store <DIR>     keep the inbox (with --approve web) and the module's MCP tasks in
                            DIR (embedded PostgreSQL, PGlite), so they survive a restart
  --store <URL>           the shared inbox's (with --approve web|inbox) and the module's
                            MCP tasks' PostgreSQL database (no password in argv:
                            PGPASSWORD, or --store-env VAR)
  --store-env <VAR>       the same, read from the variable VAR
  --worker <NAME>         with --approve web|inbox: this process's name on the inbox page
  --verbose               stack traces on failure
  -h, --help              this text

The token is never printed: the Claude line names a 0600 config file that holds it.

Examples:
  agentkit serve dist/app.module.js
  agentkit serve dist/app.module.js --export OpsModule --write-mcp-json ./mcp.json
  agentkit serve dist/app.module.js --codex
  agentkit serve dist/app.module.js --transport stdio
      (on a terminal it prints the --mcp-config with which Claude Code spawns it)
`;

/** `agentkit host --help`. */
export const HOST_HELP = `Usage: agentkit host <module-file> --port N --resource URL --issuer URL [options]
       agentkit host <module-file> --port N --dev [options]    (on this machine, no issuer)

Hosts a built @McpServer module off loopback (arc-agentkit/express's mcpRouter
on an express app): stateless, so any number of these processes behind one
load balancer serve one URL; an OAuth resource server, so every request needs
a JWT access token from --issuer whose audience is --resource (scopes per tool).
SIGTERM or SIGINT drains: new requests get 503, the calls in flight finish,
then it exits 0.

Options:
  --port <N>              the port to listen on (0: a free one; the --json line names it)
  --dev                   development mode, on this machine only: no --resource or --issuer;
                            this process issues its own short-lived tokens (every scope of
                            the module) and serves http://127.0.0.1:<port>/mcp; a warning on
                            stderr names the 0600 files holding the token and a ready MCP
                            config; refused off loopback (--bind) and when NODE_ENV=production
  --resource <URL>        this server's public URL as clients reach it (e.g. the load
                            balancer's https://tools.example.com/mcp): the token audience,
                            the RFC 9728 resource, the path served, the Host allowed
  --issuer <URL>          the authorization server whose JWTs are accepted; its keys come
                            from its RFC 8414 metadata (or --jwks-uri)
  --jwks-uri <URL>        where the issuer's signing keys are, when its metadata does not say
  --bind <ADDR>           the address to listen on (default 127.0.0.1, behind a proxy on
                            this machine; 0.0.0.0 for every interface)
  --allowed-host <NAME>   a Host header to accept (repeatable; default: --resource's hostname)
  --fleet-key-file <PATH> the key every process of the fleet shares (mode 0600, 32+ bytes):
                            it signs the state of a question a tool asks, so the answer
                            may land on another process
  --fleet-key-env <VAR>   the same key from the variable VAR (default AGENTKIT_FLEET_KEY);
                            the key is never taken from argv
  --store <URL>           the PostgreSQL database every process of the fleet shares
                            (postgres://user@host/db; no password in argv: PGPASSWORD, or
                            --store-env): a question a tool asks and an MCP task are records
                            there, answered once on whichever process the answer reaches
                            (migrate it first: agentkit inbox migrate)
  --store-env <VAR>       the same database URL, read from the variable VAR
  --inbox-store <DIR>     keep them in DIR instead (embedded PostgreSQL, PGlite: one process)
  --export <Name>         the export to host when the file has several @McpServer classes
  --timeout-ms <N>        per-call deadline of the tools (default 60000)
  --drain-ms <N>          on SIGTERM, how long calls in flight may run on (default 30000)
  --json                  print one JSON health line on stdout when listening
                            ({"event":"listening","pid","module","url","resource","issuer","fleetKey","store"};
                            with --dev, "dev": {"authorization","mcpConfig"} (file paths) for "issuer")
                            and one when stopped; no secret is printed
  --verbose               stack traces on failure
  -h, --help              this text

Examples:
  AGENTKIT_FLEET_KEY="$(cat /run/secrets/fleet-key)" PGPASSWORD=... agentkit host dist/app.module.js \\
    --port 8081 --resource https://tools.example.com/mcp --issuer https://auth.example.com \\
    --store postgres://tools@db.internal:5432/agentkit --json
`;

const TARGET = `Which server:
  -- <command...>           spawn a stdio server (everything after '--' is its command line)
    --env <NAME=value>      extra environment for it (repeatable; overlays this process's)
    --cwd <dir>             its working directory
  --url <URL>               a streamable HTTP server (e.g. http://127.0.0.1:8080/mcp)
    --header <'Name: value'>  sent on every request (repeatable), e.g. 'Authorization: Bearer <token>'
    --header-env <Name=VAR>   the same, the value read from environment variable VAR (repeatable),
                              so a token is not typed into argv, which any local user can read
  --mcp-config <file>       a server of the document agentkit serve writes (--write-mcp-json), its
                            token read from the file: the only server, else (call) the one with the tool
    --server <name>         the server of that file to use
  --timeout-ms <N>          deadline of connecting and of each request (default 30000)
  --protocol <P>            auto (default), 2026-07-28 or 2025-11-25: the protocol version to speak`;

/** `agentkit inspect --help`. */
export const INSPECT_HELP = `Usage: agentkit inspect [options] -- <command...>
       agentkit inspect [options] --url URL [--header 'Name: value' | --header-env Name=VAR]...
       agentkit inspect [options] --mcp-config <file> [--server <name>]

Connects to an MCP server and prints its tools as agentkit adapts them (name with
--prefix, the Claude Code name mcp__<server>__<tool>, side-effecting, the server's
read-only hint, an argument summary such as 'name: string (required), strict: boolean'),
its resources, and its prompts (static, or argumented: needs arguments).

${TARGET}

Options:
  --prefix <p>              prefix of the adapted names, as mcpTools(client, { prefix })
  --name <server>           the server name in qualified names (default: the server's own, sanitised)
  --json                    print one JSON object: { server, tools, resources, prompts }
  --verbose                 stack traces and the server's stderr tail on failure
  -h, --help                this text

--json shape (stable):
  server:    { name, version, qualifiedAs, capabilities[] }
  tools:     [{ name, adaptedName, qualifiedName, description, sideEffecting, requiresApproval,
                readOnlyHint (true|false|null), agentkit (the _meta.agentkit declarations or null),
                arguments: [{ name, type, required, description }], inputSchema }]
  resources: [{ uri, name, mimeType, description }]
  prompts:   [{ name, description, kind ("static"|"argumented"), arguments: [{ name, required, description }] }]

Examples:
  agentkit inspect -- npx -y @modelcontextprotocol/server-everything
  agentkit inspect --mcp-config mcp.json --json
  agentkit inspect --url http://127.0.0.1:41234/mcp --header "Authorization: Bearer $TOKEN" --json
  MCP_AUTH="$(jq -r .mcpServers.engine.headers.Authorization mcp.json)" \\
    agentkit inspect --url http://127.0.0.1:41234/mcp --header-env Authorization=MCP_AUTH
`;

/** `agentkit call --help`. */
export const CALL_HELP = `Usage: agentkit call <tool> [--args '{...}'] [options] -- <command...>
       agentkit call <tool> [--args '{...}'] [options] --url URL [--header 'Name: value' | --header-env Name=VAR]...
       agentkit call <tool> [--args '{...}'] [options] --mcp-config <file> [--server <name>]

Calls one tool and prints the text of its result on stdout (text blocks joined by
newlines; other blocks as [<type> content omitted]). When the tool reports an
error (isError), its error text goes to stderr and the exit code is 1.
<tool> is the server's name for it (a qualified mcp__<server>__<tool> is accepted too).

A call that waits for a person (an approval in the inbox) is waited for: each
progress notification of the call restarts its deadline, and an agentkit server
sends one every 30 s while the person decides; stderr says when the tool needs
approval. Without --timeout-ms the call may be silent for 2 minutes (connecting
and listing: 30 s); with it, the call may be silent that long. On 2026-07-28 an
agentkit server makes such a call an MCP task: it is polled, and on a terminal
the line under the call names the task and its status. Ctrl-C gives up: the
server is sent tasks/cancel (or notifications/cancelled) and the exit code is
130; a second Ctrl-C exits at once.

${TARGET}

Options:
  --args <json>             the arguments: one JSON object (default {})
  --json                    print the whole CallToolResult as JSON (exit 1 still when isError)
  --verbose                 stack traces and the server's stderr tail on failure
  -h, --help                this text

Examples:
  agentkit call get-sum --args '{"a": 2, "b": 3}' -- npx -y @modelcontextprotocol/server-everything
  agentkit call run_check --args '{"name": "lint"}' --mcp-config mcp.json
`;

/** `agentkit login --help`. */
export const LOGIN_HELP = `Usage: agentkit login <url> [options]

Logs in to the MCP server at <url> with OAuth 2.1 (the server's metadata is
discovered; the client is registered dynamically, or by its metadata document;
authorization code + PKCE through a redirect to 127.0.0.1) and keeps the tokens
in a file of that server's own, mode 0600, under the user's config directory.
A StreamableHttpServer with auth: "oauth" then uses (and refreshes) them.
Stored tokens for the server are dropped first: it always logs in afresh.

Options:
  --scope S            a scope to ask for when the server names none (repeatable)
  --token-dir DIR      where the token files go (default ~/.config/arc-agentkit/oauth;
                       created 0700 if missing; refused if others can write it)
  --client-name NAME   the client_name registered (default arc-agentkit)
  --print-url          print the authorization URL instead of opening a browser
  --timeout-ms N       how long to wait for the login to finish (default 300000)
  --verbose            on failure, print the stack
  -h, --help           this text

Prints "logged in to <server>; tokens kept in <file>" on stdout (never the tokens).
`;

/** `agentkit approve --help`. */
export const APPROVE_HELP = `Usage: agentkit approve (--web | --tty) [options] -- <claude command...>

Starts an approval server answered by a person — on a page in the browser
(--web: the one-time login URL is printed once, on stderr) or on this terminal
(--tty) — runs the claude command with the permission-prompt flags added
(--permission-prompt-tool, --mcp-config <0600 file>, --strict-mcp-config,
--setting-sources ""; the token stays in the file, never in argv), and exits
with the command's exit code. Under --tty the command runs in its own session,
without the terminal (its output is relayed), so nothing it starts can type
into the prompt. Ctrl-C with prompts pending names the withdrawn prompts and
exits non-zero (130 if the command exited 0).

Options:
  --web                   answer on the approval inbox page
  --tty                   answer on this terminal (the command gets no stdin)
  --timeout-ms <N>        deny a prompt nobody answered within N ms (default: wait)
  --audit <PATH>          append every decision to a JSONL audit file (0600, fsync'd)
  --auto-allow <Tool>     approve this tool without asking (repeatable; by name only)
  -h, --help              this text

Example:
  agentkit approve --web -- claude -p "run the checks" --mcp-config ./engine.json
`;

/** `agentkit inbox --help`. */
export const INBOX_HELP = `Usage: agentkit inbox migrate <postgres-url> [--schema NAME]
       agentkit inbox migrate --store-env VAR [--schema NAME]
       agentkit inbox serve (--store <postgres-url> | --store-env VAR | --inbox-store <dir>) [--port N]

Creates, or brings up to date, the tables of the shared approval inbox in a
PostgreSQL database: run it once per database before workers ask and the page
answers there. Idempotent, and safe to run from several machines at once.
It also makes two roles (the first time, as a login with CREATEROLE):
<schema>_worker, whose members ask and read only their own questions, and
<schema>_page, whose members read every question and answer. Give each
worker its own login in the first (GRANT agentkit_inbox_worker TO w1) and
only the page's login the second: a worker's credentials cannot answer.

The URL is postgres://user@host:port/database. A command line is visible to
every user of the machine, so a URL holding a password is refused: put the
whole URL in a variable and pass --store-env VAR, or the password in PGPASSWORD.

serve runs only the approval page, on the shared store: workers elsewhere ask
through it with agentkit serve <module> --approve inbox --store <postgres-url>.
The one-time login URL is printed once, on stderr (it expires unused after 15
minutes); press Enter on that terminal for a fresh one (a closed tab, an expired
session, a second reviewer); Ctrl-C stops.

Options:
  --store-env VAR      read the database URL from the variable VAR
  --schema NAME        the schema holding the tables (default agentkit_inbox)
  --store URL          (serve) the PostgreSQL database (no password: use PGPASSWORD)
  --inbox-store DIR    (serve) an embedded database in DIR (PGlite; one process)
  --port N             (serve) the page's loopback port (default: any free one)
  -h, --help           this text

Example:
  PGPASSWORD=... agentkit inbox migrate postgres://inbox@db.internal:5432/approvals
  PGPASSWORD=... agentkit inbox serve --store postgres://inbox@db.internal:5432/approvals
  PGPASSWORD=... agentkit serve ./dist/engine.js --approve inbox --store postgres://inbox@db.internal:5432/approvals
`;

/** `agentkit runs --help`. */
export const RUNS_HELP = `Usage: agentkit runs (--store <postgres-url> | --store-env VAR | --inbox-store <dir>) [options]

List the durable agent runs (agent.run(input, { store })) a store holds, newest change
first: RUN, STATUS (running, waiting, finished, failed), AGENT, UPDATED. A run whose
process crashed stays running or waiting until agent.resume(runId, { store }) continues it.

Options:
  --store URL          the PostgreSQL database (no password: use PGPASSWORD)
  --store-env VAR      read the database URL from the variable VAR
  --inbox-store DIR    the embedded store's directory (no other process may have it open)
  --status S           only the runs with status S
  --json               one JSON array instead of the table
  -h, --help           this help
`;
