// A route handler behind a real HTTP server on 127.0.0.1, for a mock that calls us back over the
// network (a payment gateway's notification): the request's bytes and headers reach the handler
// as Next would pass them, and its answer goes back as is.
import http from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (req: Request) => Promise<Response>;

export type ServedRoute = { url: string; close(): Promise<void> };

/** Serves `handler` at every path; `url` is the server's origin. */
export async function serveRoute(handler: Handler): Promise<ServedRoute> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks);
    const answer = await handler(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
