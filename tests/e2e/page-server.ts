// A tiny web page on loopback (port 0) standing in for another site: a chat client the console
// frames, or an admin's home page given as an address. Each page shows the path and query it was
// asked for, so a spec can read in the frame what the console sent.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type PageServer = { origin: string; close: () => Promise<void> };

export async function startPageServer(title: string): Promise<PageServer> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>${html(title)}</title><h1>${html(title)}</h1>` +
        `<p id="path">${html(url.pathname)}</p>` +
        [...url.searchParams].map(([k, v]) => `<p data-name="${html(k)}">${html(k)}=${html(v)}</p>`).join(""),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
