// Fetches of users' URLs: handed to root's worker proxy in new-api's format while WorkerUrl is set,
// else direct with internal addresses refused in every spelling. A loopback server stands for
// both the worker and an internal host.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FETCH_URL_MSG, fetchUserUrl, UserUrlError, type WorkerRequest } from "@/lib/net/fetch-url";
import { InternalAddressError } from "@/lib/net/public-connect";
import { updateOption } from "@/lib/options";

type Seen = { method: string; url: string; body: string };
const seen: Seen[] = [];
let answerSize = 5;

const server = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", body });
    res.writeHead(200, { "content-type": "image/png" });
    res.end(Buffer.alloc(answerSize, 7));
  });
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(async () => {
  seen.length = 0;
  answerSize = 5;
  await updateOption("WorkerUrl", "");
  await updateOption("WorkerValidKey", "");
});

describe("with the worker proxy set", () => {
  it("posts {url, key, method, headers, body} to WorkerUrl and returns the worker's answer", async () => {
    await updateOption("WorkerUrl", `http://127.0.0.1:${port}/fetch/`);
    await updateOption("WorkerValidKey", "worker-pass-1");
    const answer = await fetchUserUrl("https://images.example.com/cat.png?size=2");
    expect(answer).toMatchObject({ status: 200, contentType: "image/png", via: "worker" });
    expect(answer.body).toEqual(Buffer.alloc(5, 7));
    expect(seen).toHaveLength(1);
    // The trailing slash of the saved address is dropped when it is saved.
    expect(seen[0]).toMatchObject({ method: "POST", url: "/fetch" });
    expect(JSON.parse(seen[0]!.body) as WorkerRequest).toEqual({
      url: "https://images.example.com/cat.png?size=2",
      key: "worker-pass-1",
      method: "GET",
    });

    await fetchUserUrl("http://hooks.example.com/notify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"event":"low"}',
    });
    expect(JSON.parse(seen[1]!.body)).toEqual({
      url: "http://hooks.example.com/notify",
      key: "worker-pass-1",
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"event":"low"}',
    });
  });

  it("caps the size of the worker's answer", async () => {
    await updateOption("WorkerUrl", `http://127.0.0.1:${port}`);
    answerSize = 2048;
    await expect(fetchUserUrl("https://images.example.com/big.png", { maxBytes: 1024 })).rejects.toThrow(FETCH_URL_MSG.tooLarge);
  });

  it("refuses what is not http(s) before asking the worker", async () => {
    await updateOption("WorkerUrl", `http://127.0.0.1:${port}`);
    for (const url of ["file:///etc/passwd", "gopher://example.com/", "not a url"]) {
      await expect(fetchUserUrl(url)).rejects.toThrow(new UserUrlError(FETCH_URL_MSG.badUrl));
    }
    expect(seen).toHaveLength(0);
  });
});

describe("without a worker", () => {
  it("never connects to an internal address, however it is written", async () => {
    for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "2130706433", "0x7f000001", "0177.0.0.1", "0.0.0.0", "localhost", "[::1]"]) {
      const error = await fetchUserUrl(`http://${host}:${port}/secret`).catch((e: unknown) => e);
      expect(error, host).toBeInstanceOf(UserUrlError);
      expect((error as Error).message, host).toBe(FETCH_URL_MSG.internalAddress);
      expect((error as Error).cause, host).toBeInstanceOf(InternalAddressError);
    }
    expect(seen).toHaveLength(0);
  });

  it("goes direct again once the worker address is cleared", async () => {
    await updateOption("WorkerUrl", `http://127.0.0.1:${port}`);
    expect((await fetchUserUrl("https://images.example.com/a.png")).via).toBe("worker");
    await updateOption("WorkerUrl", "");
    await expect(fetchUserUrl(`http://127.0.0.1:${port}/a.png`)).rejects.toThrow(FETCH_URL_MSG.internalAddress);
    expect(seen).toHaveLength(1);
  });
});
