/**
 * Raw HTTP/1.1 over a TCP socket, for requests `fetch` will not send
 * (duplicate or missing Host and Authorization headers, CONNECT, upgrades,
 * lying Content-Length, bytes that are not UTF-8), and a small parser of the
 * answer: status, headers, de-chunked body, and the JSON-RPC messages in it.
 */
import { connect } from "node:net";

/** A request: headers as pairs so a name may repeat; `Connection: close` and `Content-Length` are added unless given. */
export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | Buffer;
  /** Send this exact head instead of building one (for malformed request lines). */
  readonly head?: string;
  /** Use HTTP/1.0 in the request line. */
  readonly http10?: boolean;
}

/** What came back. `status` 0 means the server closed without an answer (or the timeout hit). */
export interface RawResponse {
  readonly status: number;
  readonly reason: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

function dechunk(raw: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const nl = raw.indexOf("\r\n", at);
    if (nl < 0) break;
    const size = parseInt(raw.subarray(at, nl).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(raw.subarray(nl + 2, nl + 2 + size));
    at = nl + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** True once `all` holds a whole response: its Content-Length reached, or the last chunk of a chunked body. */
function complete(all: Buffer): boolean {
  const end = all.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const head = all.subarray(0, end).toString("latin1").toLowerCase();
  const len = /\r\ncontent-length: *(\d+)/.exec(head);
  if (len) return all.length - end - 4 >= Number(len[1]);
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return all.subarray(all.length - 5).toString("latin1") === "0\r\n\r\n";
  return false;
}

/** Send `req` to 127.0.0.1:`port` and read the answer (the server closes: we send `Connection: close`). */
export function rawHttp(port: number, req: RawRequest, timeoutMs = 5000): Promise<RawResponse> {
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, "utf8");
  let head = req.head;
  if (head === undefined) {
    const names = new Set((req.headers ?? []).map(([k]) => k.toLowerCase()));
    const lines = [
      `${req.method ?? "POST"} ${req.path ?? "/mcp"} HTTP/1.${req.http10 ? 0 : 1}`,
      ...(req.headers ?? []).map(([k, v]) => `${k}: ${v}`),
    ];
    if (!names.has("connection")) lines.push("Connection: close");
    if (body && !names.has("content-length") && !names.has("transfer-encoding")) lines.push(`Content-Length: ${body.length}`);
    head = `${lines.join("\r\n")}\r\n\r\n`;
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: "127.0.0.1", port });
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      if (end < 0) return resolve({ status: 0, reason: "", headers: {}, body: all.toString("utf8") });
      const [statusLine, ...headerLines] = all.subarray(0, end).toString("latin1").split("\r\n");
      const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine ?? "");
      const headers: Record<string, string> = {};
      for (const l of headerLines) {
        const c = l.indexOf(":");
        if (c > 0) headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
      }
      let rest: Buffer = all.subarray(end + 4);
      if ((headers["transfer-encoding"] ?? "").includes("chunked")) rest = dechunk(rest);
      resolve({ status: m ? Number(m[1]) : 0, reason: m?.[2] ?? "", headers, body: rest.toString("utf8") });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on("data", (c: Buffer) => {
      chunks.push(c);
      if (complete(Buffer.concat(chunks))) finish();
    });
    socket.on("end", finish);
    socket.on("close", finish);
    socket.on("error", finish);
    socket.on("connect", () => {
      socket.write(head!);
      if (body) socket.write(body);
    });
  });
}

/** The JSON-RPC messages in a body: one JSON document, or the `data:` lines of an SSE stream. Unparseable -> []. */
export function rpcMessages(res: RawResponse): Array<Record<string, unknown>> {
  const text = res.body.trim();
  if (!text) return [];
  const parse = (s: string): Record<string, unknown>[] => {
    try {
      const v = JSON.parse(s) as unknown;
      return (Array.isArray(v) ? v : [v]) as Record<string, unknown>[];
    } catch {
      return [];
    }
  };
  if ((res.headers["content-type"] ?? "").includes("text/event-stream")) {
    return text
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .flatMap((l) => parse(l.slice(5).trim()));
  }
  return parse(text);
}
