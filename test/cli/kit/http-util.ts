/**
 * @module test/cli/kit/http-util
 * Shared bits of the fake model APIs: a loopback node:http server on port 0,
 * request recording and SSE writing, and `ScriptedFake`, the part both fakes
 * share (a server, every request recorded, the answers hung up on, close).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a fake received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body, or the raw text when it is not JSON (`undefined` when empty). */
  readonly body: unknown;
}

/** Read a whole request body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Parse JSON or keep the text. */
export function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Write one SSE event. */
export function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Start `handler` on 127.0.0.1:0; resolves with the server and its base URL. */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}` };
}

/** Close a server, dropping keep-alive connections the CLI left open. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * The base of the scripted model fakes: a loopback server whose every request
 * is recorded before the subclass's `answer()` sees it, the ids of answers the
 * client hung up on, and `close()` / `[Symbol.asyncDispose]`. A subclass's
 * `start()` calls `listening()` with its (private) constructor.
 */
export abstract class ScriptedFake {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  /** Request ids of answers whose connection the client closed before the answer ended (an aborted request). */
  readonly hungUp: string[] = [];
  /** The index of the next scripted turn. */
  protected next = 0;

  protected constructor(
    private readonly server: Server,
    /** The base URL, `http://127.0.0.1:<port>`. */
    readonly url: string,
  ) {}

  /** Listen on 127.0.0.1:0 and build the fake with `make(server, url)`. */
  protected static async listening<F extends ScriptedFake>(make: (server: Server, url: string) => F): Promise<F> {
    const ref: { self?: F } = {};
    const { server, base } = await listen((req, res) => void ref.self!.receive(req, res));
    return (ref.self = make(server, base));
  }

  /** Answer one recorded request; `text` is its raw body. */
  protected abstract answer(req: IncomingMessage, res: ServerResponse, path: string, text: string): void;

  /** Record `requestId` in `hungUp` when `res` closes before its answer ended. */
  protected watchHangUp(res: ServerResponse, requestId: string): void {
    res.on("close", () => {
      if (!res.writableEnded) this.hungUp.push(requestId);
    });
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const path = req.url ?? "/";
    this.requests.push({ method: req.method ?? "", path, headers: req.headers, body: parseBody(text) });
    this.answer(req, res, path, text);
  }

  /** Stop listening and drop open connections. */
  async close(): Promise<void> {
    await closeServer(this.server);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
